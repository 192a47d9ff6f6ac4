// The request header by which proxy.ts tells a shared page what it found of
// its link (lib/shares/share-store.ts's ShareState): set by the proxy on every
// request to a shared page, over any value a client sent.
export const SHARE_STATE_HEADER = "x-threadline-share";

export type { ShareState } from "./share-store";
