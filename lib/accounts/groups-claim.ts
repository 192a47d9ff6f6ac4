// The group names an identity provider's groups claim gives (AUTH_OIDC_GROUPS_CLAIM):
// a JSON array of names, or one string of them separated by spaces or commas
// (providers do both). Bounded, since the provider writes it: the first
// MAX_CLAIMED_GROUPS names count, a name longer than a group's may be is
// skipped, anything else in the array is ignored. Pure.

/** Names of a claim that count; more are ignored. */
export const MAX_CLAIMED_GROUPS = 100;
/** The longest name that counts (a group's name is at most this long). */
export const MAX_CLAIMED_GROUP_CHARS = 100;

/** The distinct group names `value` (the claim as the provider sent it) names, case as written. */
export function groupsOfClaim(value: unknown): string[] {
  const names = typeof value === "string" ? value.trim().split(/[\s,]+/, MAX_CLAIMED_GROUPS) : Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === "string") : [];
  const found = new Set<string>();
  for (const name of names.slice(0, MAX_CLAIMED_GROUPS)) {
    const trimmed = name.trim();
    if (trimmed && trimmed.length <= MAX_CLAIMED_GROUP_CHARS) found.add(trimmed);
  }
  return [...found];
}
