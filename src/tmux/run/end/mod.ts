/**
 * The end: the result from how the wait ended, a timed-out run recorded, followed and collected
 * later.
 *
 * @module
 */

export { afterRun, streamEnd } from "./follow.ts";
export { notStarted, type RunContext } from "./results.ts";
export { type ResumeRequest, waitForRun } from "./resume.ts";
export { cancelledRun, settle } from "./settle.ts";
