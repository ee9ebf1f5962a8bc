/**
 * MCP over standard input and output, one JSON-RPC message a line, with a size limit per line: a
 * line over the limit is skipped as it streams in (never buffered whole) and answered with a
 * JSON-RPC error, and so is a line that is not a JSON-RPC message; the server keeps serving. End of
 * input closes the transport.
 *
 * @module
 */

import { type JSONRPCMessage, jsonRpcMessage, type Transport } from "../deps.ts";
import { type ChunkReader, chunkReader, concatBytes } from "../util/mod.ts";
import { requestIdOf } from "./request_id.ts";

/** Options for {@linkcode StdioLineTransport}. */
export interface StdioLineOptions {
  /** Largest message accepted, in bytes (default {@linkcode STDIO_MAX_MESSAGE_BYTES}). */
  maxMessageBytes?: number;
  /** Where messages come from (default: standard input). */
  input?: ReadableStream<Uint8Array>;
  /** Where replies go (default: standard output). */
  output?: WritableStream<Uint8Array>;
}

/** Default largest message, in bytes. */
export const STDIO_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

const INVALID_REQUEST = -32600;
const PARSE_ERROR = -32700;
const NEWLINE = 0x0a;

/** A {@linkcode Transport} over a byte stream of newline-delimited JSON-RPC messages. */
export class StdioLineTransport implements Transport {
  /** Called once the transport has closed. */
  onclose?: () => void;
  /** Called with an error the transport met. */
  onerror?: (error: Error) => void;
  /** Called with each message read. */
  onmessage?: (message: JSONRPCMessage) => void;
  #input: ReadableStream<Uint8Array>;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #max: number;
  #closed = false;
  #reader: ChunkReader | null = null;
  /** Error replies on their way: the end of input waits for them before it closes. */
  #replies = new Set<Promise<void>>();

  /** A transport on the process's stdin and stdout. */
  constructor(options: StdioLineOptions = {}) {
    this.#input = options.input ?? Deno.stdin.readable;
    this.#writer = (options.output ?? Deno.stdout.writable).getWriter();
    this.#max = options.maxMessageBytes ?? STDIO_MAX_MESSAGE_BYTES;
  }

  /** Starts reading; resolves at once. */
  start(): Promise<void> {
    this.#read().catch((error) => this.onerror?.(error))
      .then(() => Promise.allSettled(this.#replies))
      .finally(() => this.close());
    return Promise.resolve();
  }

  async #read(): Promise<void> {
    this.#reader = chunkReader(this.#input);
    const decoder = new TextDecoder();
    let parts: Uint8Array[] = [];
    let size = 0;
    let skipping = false;
    while (!this.#closed) {
      const value = await this.#reader.read();
      if (value === null) break;
      let from = 0;
      while (from < value.length) {
        const newline = value.indexOf(NEWLINE, from);
        const end = newline < 0 ? value.length : newline;
        if (!skipping) {
          size += end - from;
          if (size > this.#max) {
            skipping = true;
            parts = [];
          } else {
            // The unfinished tail is copied: the reader reuses the chunk's memory.
            parts.push(newline < 0 ? value.slice(from, end) : value.subarray(from, end));
          }
        }
        if (newline < 0) break;
        if (skipping) {
          this.#reply(INVALID_REQUEST, `message too large: over ${this.#max} bytes`);
        } else {
          this.#deliver(decoder.decode(concatBytes(parts)));
        }
        parts = [];
        size = 0;
        skipping = false;
        from = newline + 1;
      }
    }
  }

  #deliver(line: string): void {
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (text.trim() === "") return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.#reply(PARSE_ERROR, "parse error: a line is not JSON");
      return;
    }
    const message = jsonRpcMessage(parsed);
    if (message === null) {
      this.#reply(
        INVALID_REQUEST,
        "invalid request: not a JSON-RPC 2.0 message",
        requestIdOf(parsed),
      );
      return;
    }
    this.onmessage?.(message);
  }

  #reply(code: number, message: string, id: string | number | null = null): void {
    const sent = this.send(
      { jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage,
    )
      .catch((error) => this.onerror?.(error));
    this.#replies.add(sent);
    sent.finally(() => this.#replies.delete(sent));
  }

  /** Writes one message as a line. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return;
    await this.#writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`));
  }

  /** Stops reading and reports the close once. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#reader?.cancel();
    this.onclose?.();
  }
}
