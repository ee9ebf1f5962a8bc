/**
 * Recordings of the panes the server types into, as asciicast v2 files (`--record-dir`).
 *
 * @module
 */

export { CAST_MAX_BYTES, CastBudget, CastFile, type CastHeader } from "./cast_file.ts";
export {
  type RecordedRun,
  Recordings,
  RECORDINGS_MAX_BYTES,
  type RecordingsOptions,
  type RunRecording,
} from "./recordings.ts";
