/**
 * The wait: for the end marker on the byte stream, or for the channel.
 *
 * @module
 */

export { RunStream, STREAM_END_MS, type TypingOptions } from "./stream.ts";
export {
  channelEnd,
  parseTrailerValue,
  readTrailer,
  type Trailer,
  waitForEnd,
  type WaitOutcome,
} from "./wait.ts";
