/**
 * The look: the pane's state in one query, refusals before anything is typed, marks a gone server
 * left, whether the line editor reads, and the claim that types only if the pane is as the look saw
 * it.
 *
 * @module
 */

export { lookAtPane, type TypablePane } from "./look.ts";
export { idleState, isMarker, reconcile } from "./preflight.ts";
export { editorReads } from "./reading.ts";
export {
  deleteFetched,
  deleteUnfetched,
  PANE_CHANGED,
  pasteLine,
  releaseClaim,
  typeAgain,
  typeLine,
} from "./type_line.ts";
