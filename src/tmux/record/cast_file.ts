/**
 * An asciicast v2 file (asciinema's recording format): a JSON header line, then one JSON array a
 * line for each event, `[seconds, "o", text]` for output and `[seconds, "m", label]` for a
 * marker. Written in order, at most {@linkcode CAST_MAX_BYTES}, and within what the server's
 * recordings may hold together ({@linkcode CastBudget}): past either the recording ends with a
 * marker saying so.
 *
 * @module
 */

/** The most a recording file holds. */
export const CAST_MAX_BYTES = 64 * 1024 * 1024;

/** What all the recordings of one server process may hold together (`--record-max-mb`). */
export class CastBudget {
  #left: number;
  /** The bound, in bytes. */
  readonly max: number;

  /** A budget of `max` bytes. */
  constructor(max: number) {
    this.max = max;
    this.#left = max;
  }

  /** Takes `bytes` from what is left; false, and nothing taken, when they do not fit. */
  take(bytes: number): boolean {
    if (bytes > this.#left) {
      this.#left = 0;
      return false;
    }
    this.#left -= bytes;
    return true;
  }

  /** Nothing more may be written. */
  get spent(): boolean {
    return this.#left === 0;
  }
}

/** What a cast's header says. */
export interface CastHeader {
  /** Columns. */
  width: number;
  /** Rows. */
  height: number;
  /** Its title. */
  title: string;
}

/** One recording file, written event by event. */
export class CastFile {
  #file: Deno.FsFile;
  #budget: CastBudget;
  #started = performance.now();
  #written = 0;
  #full = false;
  #writes: Promise<void> = Promise.resolve();
  #encoder = new TextEncoder();

  private constructor(file: Deno.FsFile, budget: CastBudget) {
    this.#file = file;
    this.#budget = budget;
  }

  /**
   * Creates the file at `path` (never over an existing one) and writes its header; what it holds
   * is taken from `budget`, shared by the server's recordings.
   */
  static async create(path: string, header: CastHeader, budget: CastBudget): Promise<CastFile> {
    const file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
    const cast = new CastFile(file, budget);
    cast.#write({
      version: 2,
      width: header.width,
      height: header.height,
      timestamp: Math.floor(Date.now() / 1000),
      title: header.title,
    });
    return cast;
  }

  /** Seconds since the recording began. */
  #now(): number {
    return Math.round(performance.now() - this.#started) / 1000;
  }

  /** Output the terminal showed. */
  output(text: string): void {
    if (text !== "") this.#write([this.#now(), "o", text]);
  }

  /** A marker (a run's start), a label a player shows. */
  marker(label: string): void {
    this.#write([this.#now(), "m", label]);
  }

  #write(value: unknown): void {
    if (this.#full) return;
    let bytes = this.#encoder.encode(JSON.stringify(value) + "\n");
    // Room is kept for the marker that says the file is full (beyond the shared budget too).
    const fileFull = this.#written + bytes.length > CAST_MAX_BYTES - 256;
    if (fileFull || !this.#budget.take(bytes.length)) {
      this.#full = true;
      const why = fileFull
        ? "the file is full"
        : `this server's recordings reached their total (${this.#budget.max / 1024 / 1024} MiB, ` +
          "--record-max-mb)";
      bytes = this.#encoder.encode(
        JSON.stringify([this.#now(), "m", `recording cut: ${why}`]) + "\n",
      );
    }
    this.#written += bytes.length;
    this.#writes = this.#writes.then(async () => {
      let at = 0;
      while (at < bytes.length) at += await this.#file.write(bytes.subarray(at));
    }).catch(() => {
      this.#full = true;
    });
  }

  /** Resolves once every event so far is written. */
  flushed(): Promise<void> {
    return this.#writes;
  }

  /** Writes what is left and closes the file. */
  async close(): Promise<void> {
    await this.#writes;
    try {
      this.#file.close();
    } catch {
      // Closed already.
    }
  }
}
