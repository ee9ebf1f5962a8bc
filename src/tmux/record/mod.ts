/**
 * Recordings of the panes the server types into, as asciicast v2 files (`--record-dir`).
 *
 * @module
 */

export { CAST_MAX_BYTES, CastFile, type CastHeader } from "./cast_file.ts";
export { type RecordedRun, Recordings, type RunRecording } from "./recordings.ts";
