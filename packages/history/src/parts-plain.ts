// What a page needs of parts without their zod schemas: a client bundle that
// imports ./parts takes zod with it. ./parts re-exports these.
import type { FilePart, ThreadMessage } from "./parts";

/** At most this many characters of the user's reason are kept. */
export const MAX_APPROVAL_REASON = 500;

/** The files a message carries. */
export const filesOf = (message: Pick<ThreadMessage, "parts">): FilePart[] => message.parts.filter((part): part is FilePart => part.type === "file");
