/**
 * The wait: for the end marker on the byte stream, or for the channel.
 *
 * @module
 */

export { RunStream, STREAM_END_MS } from "./stream.ts";
export type { SettleWatch } from "./settle_watch.ts";
export type { TypingOptions, Unread } from "./unread_watch.ts";
export {
  channelEnd,
  parseTrailerValue,
  readTrailer,
  type Trailer,
  waitForEnd,
  type WaitOutcome,
} from "./wait.ts";
