import { randomUUID } from "node:crypto";
import { subscribe } from "inngest/realtime";
import { WebSocket as UndiciWebSocket } from "undici";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { TurnChunkBatch } from "@/lib/protocol/turn-events";
import { startInngestStandin, type InngestStandin } from "../support/inngest-standin/index.mjs";
import { parseEnv } from "@/lib/settings";
import { createInngestClient } from "@/lib/inngest/client";

// The SDK's realtime subscribe and publish, unchanged, against the stand-in on
// loopback: the same calls the chat route and the chat function make.
let standin: InngestStandin;
let inngest: import("@/lib/inngest/client").InngestClient;
let turnChannel: typeof import("@/lib/inngest/channels").turnChannel;
let nativeWebSocket: typeof globalThis.WebSocket | undefined;

beforeAll(async () => {
  standin = await startInngestStandin();
  inngest = createInngestClient(parseEnv({ INNGEST_DEV: standin.url }));
  ({ turnChannel } = await import("@/lib/inngest/channels"));
  // subscribe() needs a global WebSocket: Node 22 has one, Node 20 only behind
  // --experimental-websocket. undici's is the same implementation.
  nativeWebSocket = globalThis.WebSocket;
  globalThis.WebSocket ??= UndiciWebSocket as unknown as typeof globalThis.WebSocket;
});
afterAll(async () => {
  globalThis.WebSocket = nativeWebSocket as typeof globalThis.WebSocket;
  await standin.close();
});

const chunk = (delta: string, attempt = 0): TurnChunkBatch => ({ messages: [{ attempt, chunk: { type: "text-delta", id: "t", delta } }] });

async function subscribeTo(turnId: string, topics: ("chunks" | "refused")[] = ["chunks", "refused"]) {
  const received: { channel?: string; topic?: string; data: unknown }[] = [];
  const subscription = await inngest.realtime.subscribe({
    channel: turnChannel(turnId),
    topics,
    onMessage: (m) => void received.push({ channel: m.channel, topic: m.topic, data: m.data }),
  });
  return { received, subscription };
}

describe("Inngest realtime against the stand-in", () => {
  it("cannot subscribe without a global WebSocket, which Node 20 lacks", async () => {
    const installed = globalThis.WebSocket;
    globalThis.WebSocket = undefined as unknown as typeof globalThis.WebSocket;
    try {
      await expect(inngest.realtime.subscribe({ channel: turnChannel(randomUUID()), topics: ["chunks"] })).rejects.toThrow(
        "WebSockets not supported",
      );
    } finally {
      globalThis.WebSocket = installed;
    }
  });

  it("delivers a channel's messages in order, and nothing published before the subscriber connected", async () => {
    const [mine, other] = [randomUUID(), randomUUID()];
    await inngest.realtime.publish(turnChannel(mine).chunks, chunk("too early "));
    const { received, subscription } = await subscribeTo(mine);
    try {
      const words = Array.from({ length: 30 }, (_, i) => `w${i} `);
      for (const word of words) {
        await inngest.realtime.publish(turnChannel(mine).chunks, chunk(word));
        await inngest.realtime.publish(turnChannel(other).chunks, chunk(`other ${word}`));
      }
      await inngest.realtime.publish(turnChannel(mine).refused, { code: "conflict:turn", message: "busy" });
      await vi.waitFor(() => expect(received).toHaveLength(words.length + 1));
      expect(received.slice(0, -1)).toEqual(words.map((w) => ({ channel: `turn:${mine}`, topic: "chunks", data: chunk(w) })));
      expect(received.at(-1)).toEqual({
        channel: `turn:${mine}`,
        topic: "refused",
        data: { code: "conflict:turn", message: "busy" },
      });
    } finally {
      subscription.close();
    }
  });

  it("sends a socket only its token's channel and topics (not left to the SDK to filter)", async () => {
    const [mine, other] = [randomUUID(), randomUUID()];
    const token = await inngest.realtime.token({ channel: turnChannel(mine), topics: ["chunks"] });
    const url = new URL(`/v1/realtime/connect?token=${token.key}`, standin.url.replace("http", "ws"));
    const socket = new UndiciWebSocket(url);
    const frames: unknown[] = [];
    socket.onmessage = (event) => frames.push(JSON.parse(String(event.data)));
    await new Promise((resolve, reject) => ((socket.onopen = resolve), (socket.onerror = reject)));
    try {
      await inngest.realtime.publish(turnChannel(other).chunks, chunk("not yours"));
      await inngest.realtime.publish(turnChannel(mine).refused, { code: "x", message: "topic not asked for" });
      await inngest.realtime.publish(turnChannel(mine).chunks, chunk("yours"));
      await vi.waitFor(() => expect(frames).toHaveLength(1));
      expect(frames[0]).toMatchObject({ kind: "data", channel: `turn:${mine}`, topic: "chunks", data: chunk("yours") });
      // Anything else would arrive before a second publish to the same socket does.
      await inngest.realtime.publish(turnChannel(mine).chunks, chunk("again"));
      await vi.waitFor(() => expect(frames).toHaveLength(2));
      expect(frames[1]).toMatchObject({ data: chunk("again") });
    } finally {
      socket.close();
    }
  });

  it("refuses tokens that span channels, and sockets with an unknown token", async () => {
    const response = await fetch(`${standin.url}/v1/realtime/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([
        { channel: "turn:a", name: "chunks", kind: "run" },
        { channel: "turn:b", name: "chunks", kind: "run" },
      ]),
    });
    expect(response.status).toBe(400);
    const turnId = randomUUID();
    const forged = { channel: turnChannel(turnId), topics: ["chunks" as const], key: "not-a-token", apiBaseUrl: standin.url };
    // The SDK rejects with the socket's error event: the stand-in answered the upgrade with 401.
    await expect(subscribe(forged)).rejects.toBeTruthy();
    expect(standin.connections().filter((c) => c.channel === `turn:${turnId}`)).toEqual([]);
  });

  it("closing the subscription closes its websocket on the server side", async () => {
    const turnId = randomUUID();
    const { subscription } = await subscribeTo(turnId, ["chunks"]);
    const mine = () => standin.connections().filter((c) => c.channel === `turn:${turnId}`);
    expect(mine()).toEqual([{ channel: `turn:${turnId}`, topics: ["chunks"] }]);
    subscription.close();
    await vi.waitFor(() => expect(mine()).toEqual([]));
  });
});
