// What a page needs of parts without their zod schemas: a client bundle that
// imports ./parts takes zod with it. ./parts re-exports these. It imports
// nothing: what it takes of a part is only its type's name.

/** At most this many characters of the user's reason are kept. */
export const MAX_APPROVAL_REASON = 500;

/** The files a message carries. */
export const filesOf = <P extends { type: string }>(message: { parts: readonly P[] }): Extract<P, { type: "file" }>[] =>
  message.parts.filter((part): part is Extract<P, { type: "file" }> => part.type === "file");
