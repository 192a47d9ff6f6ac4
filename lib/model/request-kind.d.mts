export const REQUEST_KIND_HEADER: "x-threadline-request-kind";
export const SUMMARY_REQUEST: "summary";
export const TITLE_REQUEST: "title";
export const MEMORY_REQUEST: "memory";
export type RequestKind = typeof SUMMARY_REQUEST | typeof TITLE_REQUEST | typeof MEMORY_REQUEST;
export function requestKindHeaders(kind: RequestKind): Record<typeof REQUEST_KIND_HEADER, RequestKind>;
export function isSummaryRequest(headers: Readonly<Record<string, string | string[] | undefined>> | undefined): boolean;
export function isTitleRequest(headers: Readonly<Record<string, string | string[] | undefined>> | undefined): boolean;
export function isMemoryRequest(headers: Readonly<Record<string, string | string[] | undefined>> | undefined): boolean;
