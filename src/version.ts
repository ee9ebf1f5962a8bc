/** The server's name and version, as announced to MCP clients and printed by --version. */
export const SERVER_INFO = { name: "tmux-mcp", version: "0.1.0" } as const;
