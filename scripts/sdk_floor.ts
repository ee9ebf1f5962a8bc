/**
 * The SDK floor (issue 53): an MCP server made of the same SDK and zod as ours and nothing else,
 * bundled and started as ours is, for the bench to measure our start and memory against. Sixteen
 * tools, each with zod input and output schemas of a tool's usual size, over stdio; each answers
 * with its arguments.
 *
 * @module
 */

// deno-lint-ignore-file no-import-prefix
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/server/mcp"
import { McpServer } from "npm:@modelcontextprotocol/sdk@1.32.2/server/mcp.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/server/stdio"
import { StdioServerTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/server/stdio.js";
import { z } from "npm:zod@4.6.7";

const server = new McpServer({ name: "sdk-floor", version: "0.0.0" });
for (let i = 0; i < 16; i++) {
  server.registerTool(`tool_${i}`, {
    description: `Tool ${i} of the floor: takes a pane and a few options, answers with them.`,
    inputSchema: {
      pane_id: z.string().optional().describe("like %3"),
      text: z.string().min(1).max(100000).optional().describe("typed as it is"),
      timeout: z.number().positive().default(30).describe("seconds"),
      max_lines: z.number().int().min(1).nullable().default(null).describe("the last N lines"),
      mode: z.enum(["refuse", "wait", "type"]).default("refuse").describe("what to do"),
      patterns: z.array(z.string().max(1000)).max(20).default([]).describe("any one matches"),
    },
    outputSchema: {
      pane_id: z.string().describe("the pane"),
      exit_status: z.number().int().nullable().describe("its status"),
      output: z.array(z.string()).describe("its lines"),
      timed_out: z.boolean().describe("the wait ended first"),
    },
  }, (args) => {
    const result = {
      pane_id: args.pane_id ?? "%0",
      exit_status: 0,
      output: args.patterns,
      timed_out: false,
    };
    return { structuredContent: result, content: [{ type: "text", text: JSON.stringify(result) }] };
  });
}
await server.connect(new StdioServerTransport());
