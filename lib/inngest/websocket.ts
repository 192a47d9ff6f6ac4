import "server-only";

/**
 * Inngest's realtime subscribe() needs a global WebSocket. Node 22+ has one;
 * Node 20 only behind a flag, so install undici's (the same implementation).
 */
export async function ensureWebSocket(): Promise<void> {
  if (typeof globalThis.WebSocket !== "undefined") return;
  const { WebSocket } = await import("undici");
  globalThis.WebSocket = WebSocket as unknown as typeof globalThis.WebSocket;
}
