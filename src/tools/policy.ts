/**
 * Safety tiers and the policy that decides which tools a server offers.
 *
 * @module
 */

/** Safety tiers, each including the ones before it. */
export const TIERS = ["readonly", "mutating", "destructive"] as const;

/** A safety tier. */
export type Tier = (typeof TIERS)[number];

/** Which tools a server offers. */
export interface ToolPolicy {
  tier: Tier;
  /** Only these names (null: all within the tier but the opt-in ones). */
  only: string[] | null;
  /** Opt-in tools offered besides the default set. */
  with: string[];
  exclude: string[];
}

/** Whether a tool is offered under a policy. */
export function allowed(
  spec: { name: string; tier: Tier; optIn?: boolean },
  policy: ToolPolicy,
): boolean {
  if (TIERS.indexOf(spec.tier) > TIERS.indexOf(policy.tier)) return false;
  if (policy.only !== null && !policy.only.includes(spec.name)) return false;
  if (spec.optIn && policy.only === null && !policy.with.includes(spec.name)) return false;
  return !policy.exclude.includes(spec.name);
}

/** Reads a tier name; anything else fails closed to readonly. */
export function parseTier(text: string): { tier: Tier; valid: boolean } {
  const tier = TIERS.find((t) => t === text);
  return tier ? { tier, valid: true } : { tier: "readonly", valid: false };
}
