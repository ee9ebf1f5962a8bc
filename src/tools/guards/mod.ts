/**
 * The guards at every tool's door: the sessions a confined server may act on (`scope_guard.ts`),
 * and the panes a person granted, asked through the client's prompt (`grant_guard.ts`).
 *
 * @module
 */

export {
  checkCallScope,
  checkCreatable,
  checkPanesInScope,
  type ScopedCall,
} from "./scope_guard.ts";
export {
  askPerson,
  checkGrants,
  checkPanesGranted,
  type FannedPane,
  type GrantAnswer,
  type GrantCall,
  REFUSAL_HOLDS_MS,
} from "./grant_guard.ts";
