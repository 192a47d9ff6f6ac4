import "server-only";
import { APICallError, RetryError } from "ai";

// What a user may read when the model call fails. A provider's own words can
// carry the operator's secrets ("Incorrect API key provided: sk-proj-Ab12…")
// or internals, so users get a plain sentence chosen by the kind of failure;
// the provider's text stays in the server's log (the error's cause).

/** The failure behind the AI SDK's retry wrapper, if any. */
function innermost(error: unknown): unknown {
  return RetryError.isInstance(error) ? (error.lastError ?? error) : error;
}

export function describeModelError(error: unknown): string {
  const failure = innermost(error);
  if (!APICallError.isInstance(failure)) return "The model's answer broke off. Please try again.";
  const status = failure.statusCode;
  if (status === undefined) return "The server could not reach the model provider. Please try again.";
  if (status < 400) return "The model's answer broke off. Please try again."; // the stream failed after a 200
  if (status === 401 || status === 403) return "The model provider rejected the server's API key. The operator needs to check it.";
  if (status === 404) return "The model provider does not offer the configured model.";
  if (status === 408 || status === 504) return "The model provider took too long to answer. Please try again.";
  if (status === 429) return "The model provider is limiting this server's requests. Please try again in a moment.";
  if (status >= 500) return "The model provider had a problem answering. Please try again.";
  return "The model provider refused the request.";
}
