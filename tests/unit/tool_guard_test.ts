import { assertEquals } from "../deps.ts";
import { unknownToolCall } from "../../src/mcp/tool_guard.ts";

const known = new Set(["run_command"]);

Deno.test("unknownToolCall picks out calls to tools not offered, nothing else", () => {
  const call = (name: unknown, id: string | number = 1) => ({
    jsonrpc: "2.0" as const,
    id,
    method: "tools/call",
    params: { name, arguments: {} },
  });
  assertEquals(unknownToolCall(call("kill_server", 7), known), { id: 7, name: "kill_server" });
  assertEquals(unknownToolCall(call("run_command"), known), null);
  // A missing or mistyped name is the SDK's to reject.
  assertEquals(unknownToolCall(call(42), known), null);
  assertEquals(
    unknownToolCall({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }, known),
    null,
  );
  assertEquals(
    unknownToolCall({ jsonrpc: "2.0", method: "tools/call", params: { name: "x" } }, known),
    null,
  );
});
