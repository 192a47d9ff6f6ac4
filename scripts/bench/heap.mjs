// The JavaScript heap a server process holds after a full garbage collection,
// read over its inspector (a server started with --inspect=127.0.0.1:0). RSS
// also counts what V8 and malloc keep for reuse; the heap after a collection
// is what the process can no longer free: the figure that shows a leak.
import { readFileSync } from "node:fs";
import { WebSocket } from "undici";

/** The inspector's address, from the line Node writes to the server's stderr log. */
function inspectorUrl(logFile) {
  const url = /Debugger listening on (ws:\/\/\S+)/.exec(readFileSync(logFile, "utf8"))?.[1];
  if (!url) throw new Error(`no inspector address in ${logFile}`);
  return url;
}

/** Heap in use after a full collection, in MiB, for the server whose stderr goes to `logFile`. */
export async function heapAfterGcMiB(logFile) {
  const socket = new WebSocket(inspectorUrl(logFile));
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", reject, { once: true });
  });
  let id = 0;
  const pending = new Map();
  socket.addEventListener("message", ({ data }) => {
    const message = JSON.parse(String(data));
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  });
  const call = (method) =>
    new Promise((resolve, reject) => {
      pending.set(++id, (message) => (message.error ? reject(new Error(`${method}: ${message.error.message}`)) : resolve(message.result)));
      socket.send(JSON.stringify({ id, method }));
    });
  try {
    await call("HeapProfiler.collectGarbage");
    const { usedSize } = await call("Runtime.getHeapUsage");
    return Math.round(usedSize / 2 ** 20);
  } finally {
    socket.close();
  }
}
