/**
 * The owner of everything long-lived that one process keeps open towards tmux: the control
 * clients (and when a failed socket may be tried again), the output watchers, and the run_command
 * state (per-pane queues, timed-out calls, run functions given out). One per process;
 * {@linkcode TmuxClient.close} ends it all.
 *
 * @module
 */

import {
  closeControlPool,
  type ControlPool,
  createControlPool,
} from "./transport/control/control.ts";
import { createClientGates } from "./transport/control/gate.ts";
import { closeOrphanGuards } from "./transport/control/orphan_guard.ts";
import { closeWatcherPool } from "./transport/watch/watcher_pool.ts";
import { createWatcherPool, type WatcherPool } from "./transport/watch/watcher.ts";
import type { TmuxSocket } from "./transport/socket.ts";
import { LOCAL_HOST, type RemoteHost } from "./transport/remote/remote_spec.ts";
import type { Scope } from "./objects/scope.ts";
import type { SshOptions } from "./transport/remote/ssh.ts";
import { TmuxError } from "./errors.ts";
import { startsShell } from "./shells.ts";
import { lockKey } from "./transport/spawn/exec.ts";
import { Recordings, RECORDINGS_MAX_BYTES } from "./record/mod.ts";
import { createRemoteHosts } from "./transport/remote/remote_hosts.ts";
import {
  createTypedCursors,
  createUnfinishedAnswers,
  rememberAnswer,
  rememberTyped,
  takeUnfinished,
  typedCursor,
} from "./read/capture/typed_echo.ts";
import {
  createRunner,
  type ListedRun,
  listRuns,
  type OutputMatches,
  type PaneOutcome,
  type ReadRequest,
  readRunOutput,
  type ResumeRequest,
  runCommand,
  type RunEndEvent,
  runMany,
  type RunManyRequest,
  type RunPage,
  type RunRequest,
  type RunResult,
  runSettled,
  type SearchOutputRequest,
  searchRunOutput,
  shellReady,
  type ShellReadyOptions,
  shellStarting,
  stopRunner,
  waitForRun,
} from "./run/mod.ts";

/** Options for {@linkcode createTmuxClient}. */
export interface TmuxClientOptions {
  /**
   * Send commands over a persistent control-mode client per socket (default true); false spawns
   * a tmux process for each command and reads run_command output from the screen.
   */
  control?: boolean;
  /**
   * Attach clients to sessions (default true): the command client and the output watchers. tmux
   * treats an attached client as a person looking (focus-in to the current pane of a session that
   * had none, its window's alert flags cleared); false attaches nothing, every command spawns a
   * tmux process and waits look at panes on a timer.
   */
  attach?: boolean;
  /** The directory tmux keeps its sockets under (`TMUX_TMPDIR`); null: tmux's own choice. */
  tmpdir?: string | null;
  /** Hosts whose tmux calls may reach over ssh, as the operator declared them. */
  remotes?: readonly RemoteHost[];
  /** How ssh reaches them. */
  ssh?: SshOptions;
  /** How long a remote host may go unnamed before its connection closes (default 15 minutes). */
  remoteIdleMs?: number;
  /** The sessions calls may see and touch, on every host (see scope.ts); null: every one. */
  scope?: Scope | null;
  /** A run shows itself in its pane's title while under way (default true; see activity_mark.ts). */
  showActivity?: boolean;
  /** Record the panes runs type into, as asciicast files in this directory (default: none). */
  recordDir?: string | null;
  /** What the recordings hold together, in bytes (default 256 MiB). */
  recordMaxBytes?: number;
}

/** What a process keeps open towards tmux servers. */
export interface TmuxClient {
  /** Runs a command in a pane and waits for it, as the run_command contract says. */
  runCommand(request: RunRequest): Promise<RunResult>;
  /** Runs one command in many panes, a window of them at once (run_command_many). */
  runMany(request: RunManyRequest): Promise<PaneOutcome[]>;
  /** Waits again for a run that timed out, by its run id (wait_for_command). */
  waitForRun(request: ResumeRequest): Promise<RunResult>;
  /**
   * The runs this process started on a tmux server that `owner` may see, newest first, as last
   * seen; those going are looked at (list_runs).
   */
  listRuns(socket: TmuxSocket, owner: string | null): Promise<ListedRun[]>;
  /** One listed run, when `owner` may see it. */
  listedRun(runId: string, owner: string | null): ListedRun | undefined;
  /** Calls `listener` as each run ends (seen by a result, or by its stream after its call). */
  onRunEnd(listener: (event: RunEndEvent) => void): () => void;
  /** Ends the recordings of one MCP session's runs (null: shared runs'). */
  endRecordings(owner: string | null): Promise<void>;
  /** A page of a kept run's output (read_command_output). */
  readRunOutput(request: ReadRequest): Promise<RunPage>;
  /** The lines of a kept run's output that match a pattern (read_command_output's pattern). */
  searchRunOutput(request: SearchOutputRequest): Promise<OutputMatches>;
  /**
   * Resolves once the pane's last run (if one just ended) has settled, its shell at its prompt:
   * before a cursor is taken or keys are typed.
   */
  settled(socket: TmuxSocket, paneId: string): Promise<void>;
  /**
   * Notes a pane whose program this server just started (a session, window or split made, a
   * respawn): when `command` starts a shell, a run there waits within its time while the shell
   * reads its startup files.
   */
  started(socket: TmuxSocket, paneId: string, command: string | null | undefined): void;
  /**
   * Whether the pane's shell reads: a shell {@linkcode started} may still be reading its startup
   * files, and is waited for until the deadline (false: it came first).
   */
  shellReady(socket: TmuxSocket, paneId: string, options: ShellReadyOptions): Promise<boolean>;
  /** Remembers the cursor send_keys or paste_text made as it typed text into a pane. */
  typed(socket: TmuxSocket, paneId: string, cursor: string): void;
  /**
   * The cursor made as text was last typed into a pane, while its echo may still come (for a
   * wait with no cursor of its own); null when none.
   */
  typedCursor(socket: TmuxSocket, paneId: string): string | null;
  /** Remembers where a wait on a pane stopped reading; null: its exchange was whole. */
  answered(socket: TmuxSocket, paneId: string, cursor: string | null): void;
  /** Where the last wait on a pane stopped reading, if its exchange was not whole (forgotten). */
  unfinished(socket: TmuxSocket, paneId: string): string | null;
  /**
   * The address of one tmux server on this client: on `host` (default this machine's), its `-L`
   * name, or null for the default (a remote host's declared socket, else tmux's own).
   */
  socket(socketName: string | null, host?: string): TmuxSocket;
  /** Ends the calls in flight (as cancellations), then every control client and watcher. */
  close(): Promise<void>;
}

/** How long a remote host may go unnamed before its connection closes, by default. */
const REMOTE_IDLE_MS = 15 * 60_000;

/** Makes the one client of a process. */
export function createTmuxClient(options: TmuxClientOptions = {}): TmuxClient {
  const attach = options.attach ?? true;
  // One queue of starts and ends per tmux server, for command clients and watchers alike.
  const gates = createClientGates();
  const controls: ControlPool | null = attach && (options.control ?? true)
    ? createControlPool(gates)
    : null;
  const watchers: WatcherPool | null = attach ? createWatcherPool(gates) : null;
  const recordings = options.recordDir
    ? new Recordings(options.recordDir, {
      maxBytes: options.recordMaxBytes ?? RECORDINGS_MAX_BYTES,
      onSpent: (message) => console.error(`tmux-mcp: ${message}`),
    })
    : null;
  const runner = createRunner(recordings);
  const typedCursors = createTypedCursors();
  const unfinished = createUnfinishedAnswers();
  const scope = options.scope ?? null;
  const showActivity = options.showActivity ?? true;
  const remotes = createRemoteHosts({
    remotes: options.remotes ?? [],
    ssh: options.ssh ?? { configFile: null, acceptNewHostKeys: false },
    idleMs: options.remoteIdleMs ?? REMOTE_IDLE_MS,
    controls,
    watchers,
  });
  return {
    runCommand: (request) => runCommand(runner, request),
    runMany: (request) => runMany(runner, request),
    async waitForRun(request) {
      const result = await waitForRun(runner, request);
      runner.runs.answered(result.run_id, result);
      return result;
    },
    listRuns: (socket, owner) => listRuns(runner.runs, { socket, owner }),
    listedRun: (runId, owner) => runner.runs.get(runId, owner),
    onRunEnd: (listener) => runner.runs.onEnd(listener),
    endRecordings: async (owner) => await recordings?.end(owner),
    readRunOutput: (request) => readRunOutput(runner, request),
    searchRunOutput: (request) => searchRunOutput(runner, request),
    settled: (socket, paneId) => runSettled(runner, socket, paneId),
    started: (socket, paneId, command) => {
      if (startsShell(command)) shellStarting(runner, lockKey(socket, paneId));
    },
    shellReady: (socket, paneId, options) => shellReady(runner, { socket, paneId }, options),
    typed: (socket, paneId, cursor) => rememberTyped(typedCursors, { socket, paneId }, cursor),
    typedCursor: (socket, paneId) => typedCursor(typedCursors, { socket, paneId }),
    answered: (socket, paneId, cursor) => rememberAnswer(unfinished, { socket, paneId }, cursor),
    unfinished: (socket, paneId) => takeUnfinished(unfinished, { socket, paneId }),
    socket(socketName, host = LOCAL_HOST): TmuxSocket {
      if (host === LOCAL_HOST) {
        return {
          socketName,
          tmpdir: options.tmpdir ?? null,
          controls,
          watchers,
          remote: null,
          scope,
          showActivity,
        };
      }
      const remote = remotes.use(host);
      if (remote === undefined) {
        const declared = [LOCAL_HOST, ...remotes.names].join(", ");
        throw new TmuxError(
          "invalid_argument",
          `unknown host ${JSON.stringify(host)} (declared: ${declared})`,
        );
      }
      return {
        socketName: socketName ?? remote.socketName,
        tmpdir: null,
        controls,
        watchers,
        remote,
        scope,
        showActivity,
      };
    },
    async close(): Promise<void> {
      await stopRunner(runner);
      await recordings?.end();
      await Promise.all([
        controls === null ? undefined : closeControlPool(controls),
        watchers === null ? undefined : closeWatcherPool(watchers),
      ]);
      await closeOrphanGuards(gates.orphans);
      await remotes.close();
    },
  };
}
