// The JavaScript heap a server process holds after a full garbage collection,
// read over its inspector (a server started with --inspect=127.0.0.1:0). RSS
// also counts what V8 and malloc keep for reuse; the heap after a collection
// is what the process can no longer free: the figure that shows a leak.
import { createWriteStream, readFileSync } from "node:fs";
import { WebSocket } from "undici";

/** The inspector's address, from the line Node writes to the server's stderr log. */
function inspectorUrl(logFile) {
  const url = /Debugger listening on (ws:\/\/\S+)/.exec(readFileSync(logFile, "utf8"))?.[1];
  if (!url) throw new Error(`no inspector address in ${logFile}`);
  return url;
}

/** A session on the inspector of the server whose stderr goes to `logFile`: `call(method, params)`, `on(method, listener)`, `close()`. */
async function inspect(logFile) {
  const socket = new WebSocket(inspectorUrl(logFile));
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", reject, { once: true });
  });
  let id = 0;
  const pending = new Map();
  const listeners = new Map();
  socket.addEventListener("message", ({ data }) => {
    const message = JSON.parse(String(data));
    if (message.id === undefined) return listeners.get(message.method)?.(message.params);
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  });
  const call = (method, params) =>
    new Promise((resolve, reject) => {
      pending.set(++id, (message) => (message.error ? reject(new Error(`${method}: ${message.error.message}`)) : resolve(message.result)));
      socket.send(JSON.stringify({ id, method, ...(params ? { params } : {}) }));
    });
  return { call, on: (method, listener) => listeners.set(method, listener), close: () => socket.close() };
}

/** Heap in use after a full collection, in MiB, for the server whose stderr goes to `logFile`. */
export async function heapAfterGcMiB(logFile) {
  const session = await inspect(logFile);
  try {
    await session.call("HeapProfiler.collectGarbage");
    const { usedSize } = await session.call("Runtime.getHeapUsage");
    return Math.round(usedSize / 2 ** 20);
  } finally {
    session.close();
  }
}

/**
 * A heap snapshot of that server, after a full collection, written to `file`
 * (Chrome DevTools opens it): two taken some turns apart show what a leak keeps.
 */
export async function heapSnapshot(logFile, file) {
  const session = await inspect(logFile);
  const out = createWriteStream(file);
  try {
    session.on("HeapProfiler.addHeapSnapshotChunk", ({ chunk }) => out.write(chunk));
    await session.call("HeapProfiler.collectGarbage");
    await session.call("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
  } finally {
    session.close();
    await new Promise((resolve, reject) => out.end((error) => (error ? reject(error) : resolve())));
  }
}
