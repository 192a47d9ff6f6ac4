import { AsyncLocalStorage } from "node:async_hooks";

// A Next.js server puts AsyncLocalStorage on globalThis before any module of
// the app loads, and Next's request stores are made from it once per process
// (kept on globalThis). The integration files share their worker's modules,
// so the first file to load one of those stores must find it already there,
// as in the server, or every later file gets a store that refuses to run.
const holder = globalThis as { AsyncLocalStorage?: typeof AsyncLocalStorage };
holder.AsyncLocalStorage ??= AsyncLocalStorage;
