// A strict object's error, for zod: which fields it does not take, by name,
// or else what it must be. Isomorphic: no imports.
export const unknownFieldsOr = (what: string) => (issue: { code?: string; keys?: string[] }) =>
  issue.code === "unrecognized_keys" && issue.keys ? `has no field ${issue.keys.map((key) => `"${key}"`).join(", ")}` : what;
