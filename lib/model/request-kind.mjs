// What a model request is for, said in a header of its own. The AI SDK sends a
// call's `headers` with the provider's HTTP request and hands them to a model
// of ours (the offline one) in its call options, so a model that answers
// summary or title requests differently (the offline model, the tests' mock server)
// tells one by this header, never by reading its prompt. Plain JavaScript: the
// mock server, which runs without a TypeScript step, imports it too.

export const REQUEST_KIND_HEADER = "x-threadline-request-kind";

/** Compaction's request for a summary of a thread's earlier messages. */
export const SUMMARY_REQUEST = "summary";

/** The request for a short title of a thread after its first reply (lib/agent/title.ts). */
export const TITLE_REQUEST = "title";

/** The request that learns memories from an exchange after its reply (lib/memory/learning.ts). */
export const MEMORY_REQUEST = "memory";

/** The headers that mark a request as being of `kind`. */
export function requestKindHeaders(kind) {
  return { [REQUEST_KIND_HEADER]: kind };
}

/** Whether a request's headers (names in lower case, as the AI SDK and Node give them) mark it as a summary request. */
export function isSummaryRequest(headers) {
  return headers?.[REQUEST_KIND_HEADER] === SUMMARY_REQUEST;
}

/** Whether a request's headers mark it as a title request. */
export function isTitleRequest(headers) {
  return headers?.[REQUEST_KIND_HEADER] === TITLE_REQUEST;
}

/** Whether a request's headers mark it as a memory request. */
export function isMemoryRequest(headers) {
  return headers?.[REQUEST_KIND_HEADER] === MEMORY_REQUEST;
}
