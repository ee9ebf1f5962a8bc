import { assertEquals, assertMatch } from "../deps.ts";
import { createSshLink, sshFailure } from "../../src/tmux/transport/remote/ssh.ts";
import { parseRemote } from "../../src/tmux/transport/remote/remote_spec.ts";

Deno.test("--remote declarations: aliases, ssh:// addresses, socket and tmux settings", () => {
  assertEquals(parseRemote("web1=ssh:web1"), {
    name: "web1",
    destination: "web1",
    port: null,
    socketName: null,
    tmux: "tmux",
  });
  assertEquals(
    parseRemote("build=ssh://ci@build-01.example:2222?socket=agents&tmux=/opt/homebrew/bin/tmux"),
    {
      name: "build",
      destination: "ci@build-01.example",
      port: 2222,
      socketName: "agents",
      tmux: "/opt/homebrew/bin/tmux",
    },
  );
  assertEquals(parseRemote("v6=ssh://[::1]").destination, "::1");
  assertEquals(parseRemote("v6=ssh://ci@[::1]:22").destination, "ci@::1");
  assertEquals(
    parseRemote("h=ssh:h?tmux=/home/ci/.local/bin/tmux").tmux,
    "/home/ci/.local/bin/tmux",
  );
});

Deno.test("--remote refuses what would reach ssh as an option or a remote shell as code", () => {
  for (
    const spec of [
      "x=ssh:-oProxyCommand=touch /tmp/p",
      "x=ssh://-oProxyCommand=x",
      "x=ssh://a b@host",
      "x=ssh:host;reboot",
      "x=ssh:host?socket=a b",
      "x=ssh:host?socket=$(id)",
      "x=ssh:host?tmux=tmux;id",
      "x=ssh:host?tmux=relative/tmux",
      "x=ssh:host?user=root",
      "x=ssh://host:99999",
      "local=ssh:host",
      "Bad=ssh:host",
      "x=docker:box",
      "ssh:host",
      // What a tmux or ssh would read as a flag or a path step, a setting given twice, a name
      // too long for DNS.
      "web=ssh:host?socket=..",
      "web=ssh:host?socket=.",
      "web=ssh:host?socket=-L",
      "web=ssh:host?socket=a&socket=b",
      "web=ssh:host?socket=",
      "web=ssh:host?tmux=/usr/../bin/tmux",
      `web=ssh://${"a".repeat(300)}`,
      `web=ssh://ci@${"a".repeat(64)}.example`,
      "web=ssh://-host",
      `web=ssh:${"a".repeat(300)}`,
    ]
  ) {
    let message = "";
    try {
      parseRemote(spec);
    } catch (error) {
      message = (error as Error).message;
    }
    assertMatch(message, /^--remote /, spec);
  }
});

Deno.test("ssh's failures are told apart by what it said", () => {
  const host = parseRemote("lab=ssh:lab");
  const code = (stderr: string) => sshFailure(host, stderr).code;
  assertEquals(
    [
      code(
        "No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict " +
          "checking.\nHost key verification failed.",
      ),
      code(
        "@@@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @@@\nHost key verification failed.",
      ),
      code("root@127.0.0.1: Permission denied (publickey)."),
      code("ssh: connect to host 127.0.0.1 port 9: Connection refused"),
      code("ssh: Could not resolve hostname nowhere: Name or service not known"),
      code(""),
    ],
    [
      "host_key_unknown",
      "host_key_unknown",
      "auth_failed",
      "host_unreachable",
      "host_unreachable",
      "host_unreachable",
    ],
  );
});

Deno.test("a host's short-lived channels are a few at a time, the rest in line, in order", async () => {
  const link = createSshLink(parseRemote("lab=ssh:lab"), {
    configFile: null,
    acceptNewHostKeys: false,
  });
  let open = 0;
  let most = 0;
  const order: number[] = [];
  const releases: (() => void)[] = [];
  const works = Array.from({ length: 6 }, (_, i) =>
    link.channel(async () => {
      open++;
      most = Math.max(most, open);
      order.push(i);
      await new Promise<void>((resolve) => releases.push(resolve));
      open--;
      return i;
    }));
  for (let i = 0; i < 6; i++) {
    while (releases.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    releases.shift()!();
  }
  assertEquals(await Promise.all(works), [0, 1, 2, 3, 4, 5]);
  assertEquals([most, order], [2, [0, 1, 2, 3, 4, 5]]);
  // A failed one gives its place back too.
  await link.channel(() => Promise.reject(new Error("x"))).catch(() => {});
  assertEquals(await link.channel(() => Promise.resolve("after")), "after");
});
