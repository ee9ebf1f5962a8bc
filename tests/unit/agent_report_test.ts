import { assertEquals } from "../deps.ts";
import { agentMessage, MESSAGE_MAX, parseAgentMark } from "../../src/tmux/read/agent_report.ts";

Deno.test("an agent's mark is read only as its hook lines write it", () => {
  assertEquals(parseAgentMark("waiting 4242 1796617186 permission"), {
    state: "waiting",
    pid: 4242,
    since: 1796617186,
    reason: "permission",
  });
  assertEquals(parseAgentMark("done 7 12")?.reason, null);
  // A reason is kept for waiting only.
  assertEquals(parseAgentMark("working 7 12 idle")?.reason, null);
  for (
    const value of [
      "",
      "waiting",
      "waiting 0 12",
      "waiting 7 12 because",
      "waiting 7 12 permission extra",
      "sleeping 7 12",
      "waiting -7 12",
      "waiting 7 12\npermission",
      "waiting 12345678901 12",
    ]
  ) {
    assertEquals(parseAgentMark(value), null, JSON.stringify(value));
  }
});

Deno.test("an agent's message: its hook input's field, control characters blank, bounded", () => {
  const claude = JSON.stringify({
    session_id: "s",
    hook_event_name: "Notification",
    message: "Claude needs your permission to use Bash",
    notification_type: "permission_prompt",
  });
  assertEquals(agentMessage(claude), "Claude needs your permission to use Bash");
  // A hook line keeps 2,000 bytes of its input: a cut JSON still gives its field's start.
  const codex = JSON.stringify({
    type: "agent-turn-complete",
    "last-assistant-message": "é".repeat(3000),
  })
    .slice(0, 2000);
  assertEquals(agentMessage(codex), `${"é".repeat(MESSAGE_MAX - 1)}…`);
  assertEquals(agentMessage('{"message": "cut in an escape \\u00'), "cut in an escape");
  assertEquals(agentMessage("plain \x1b]0;title\x07text\r\n"), "plain  ]0;title text");
  // Codex's PermissionRequest: what the tool asks for, its description first, else its command;
  // a message field wherever it stands comes before either.
  const asked = { tool_name: "Bash", tool_input: { command: "make test" } };
  assertEquals(agentMessage(JSON.stringify(asked)), "make test");
  const described = { ...asked, tool_input: { ...asked.tool_input, description: "Run the tests" } };
  assertEquals(agentMessage(JSON.stringify(described)), "Run the tests");
  assertEquals(agentMessage(JSON.stringify({ ...described, message: "said" })), "said");
  assertEquals(agentMessage('{"other": 1}'), null);
  assertEquals(agentMessage(""), null);
  assertEquals([...agentMessage("x".repeat(100_000)) ?? ""].length, MESSAGE_MAX);
});
