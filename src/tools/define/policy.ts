/**
 * Safety tiers and the policy that decides which tools a server offers.
 *
 * @module
 */

import { type Toolset, toolsetOf } from "./toolsets.ts";

/** Safety tiers, each including the ones before it. */
export const TIERS = ["readonly", "mutating", "destructive"] as const;

/** A safety tier. */
export type Tier = (typeof TIERS)[number];

/** Which tools a server offers. */
export interface ToolPolicy {
  /** The safety tier. */
  tier: Tier;
  /** The toolsets offered (see toolsets.ts). */
  toolsets: readonly Toolset[];
  /** Only these names, whatever their set (null: the toolsets decide). */
  only: string[] | null;
  /** Tools offered besides the toolsets'. */
  with: string[];
  /** Tools never offered. */
  exclude: string[];
}

/** Whether a tool is offered under a policy: within the tier, chosen, not excluded. */
export function allowed(spec: { name: string; tier: Tier }, policy: ToolPolicy): boolean {
  if (TIERS.indexOf(spec.tier) > TIERS.indexOf(policy.tier)) return false;
  const set = toolsetOf(spec.name);
  const chosen = policy.only !== null
    ? policy.only.includes(spec.name)
    : (set !== undefined && policy.toolsets.includes(set)) || policy.with.includes(spec.name);
  return chosen && !policy.exclude.includes(spec.name);
}

/** Reads a tier name; anything else fails closed to readonly. */
export function parseTier(text: string): { tier: Tier; valid: boolean } {
  const tier = TIERS.find((t) => t === text);
  return tier ? { tier, valid: true } : { tier: "readonly", valid: false };
}
