// The errors a tool call is given when it never ran to a result. The page
// tells them from a tool's own error by their text, so it imports them from
// here (no zod) rather than from parts.ts.

/** A tool call the user's Stop ended before it had a result. */
export const STOPPED_TOOL_ERROR = "Stopped by the user.";

/** A tool call the model asked for in an answer that broke off before the call ran. */
export const BROKE_OFF_TOOL_ERROR = "Not run: the model's answer broke off.";
