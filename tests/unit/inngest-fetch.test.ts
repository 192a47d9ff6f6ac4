import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { inngestFetch } from "@/lib/inngest/inngest-fetch";

/** A loopback server that records what it got and on which connection; `answer` decides the reply. */
async function server(answer: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void) {
  const seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string; connection: number }[] = [];
  const sockets = new Map<Socket, number>();
  const srv = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body, connection: sockets.get(req.socket)! });
      answer(req, body, res);
    });
  });
  srv.on("connection", (socket) => sockets.set(socket, sockets.size + 1));
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  const close = () => new Promise<void>((resolve) => (srv.closeAllConnections(), srv.close(() => resolve())));
  closers.push(close);
  return { url, seen, connections: () => sockets.size, sockets };
}
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

describe("the Inngest SDK's fetch", () => {
  it("sends the method, headers and body and answers as fetch does", async () => {
    const { url, seen } = await server((_req, body, res) => {
      res.writeHead(201, "Made", { "content-type": "application/json", "x-answer": "yes" });
      res.end(JSON.stringify({ got: body ? JSON.parse(body) : null }));
    });
    const response = await inngestFetch(new URL("/v1/realtime/publish?channel=turn%3Aa&topic=chunks", url), {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Inngest-SDK": "inngest-js:v4" },
      body: JSON.stringify({ messages: ["héllo"] }),
    });
    expect(seen[0]).toMatchObject({
      method: "POST",
      url: "/v1/realtime/publish?channel=turn%3Aa&topic=chunks",
      headers: { "content-type": "application/json", "x-inngest-sdk": "inngest-js:v4", "content-length": String(Buffer.byteLength('{"messages":["héllo"]}')) },
      body: '{"messages":["héllo"]}',
    });
    expect(response.ok).toBe(true);
    expect(response.status).toBe(201);
    expect(response.headers.get("x-answer")).toBe("yes");
    expect(await response.json()).toEqual({ got: { messages: ["héllo"] } });

    const empty = await inngestFetch(url, { method: "POST", body: "" });
    expect(empty.status).toBe(201);
    const noContent = await (await server((_req, _body, res) => res.writeHead(204).end())).url;
    expect((await inngestFetch(noContent)).status).toBe(204);
  });

  it("keeps its connections open for the next requests", async () => {
    const { url, seen, connections } = await server((_req, _body, res) => res.end("{}"));
    for (let i = 0; i < 8; i++) await (await inngestFetch(url, { method: "POST", body: `{"i":${i}}` })).text();
    expect(seen.map((s) => s.body)).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => `{"i":${i}}`));
    // undici takes turns between two sockets for requests one after another; none is opened per request.
    expect(connections()).toBeLessThanOrEqual(2);
  });

  it("never sends a request again by itself: the server that dropped it may have acted on it", async () => {
    let drop = false;
    const { url, seen } = await server((req, _body, res) => {
      if (drop) {
        drop = false;
        return req.socket.destroy();
      }
      res.end("{}");
    });
    await (await inngestFetch(url, { method: "POST", body: "first" })).text();
    drop = true;
    const failed = await inngestFetch(url, { method: "POST", body: "second" }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(TypeError);
    expect(seen.map((s) => s.body)).toEqual(["first", "second"]);
  });

  it("fails as fetch fails: a TypeError with the cause, not sent again on a new connection", async () => {
    const { url, seen } = await server((req) => req.socket.destroy());
    const failed = await inngestFetch(url, { method: "POST", body: "x" }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(TypeError);
    expect((failed as TypeError).message).toBe("fetch failed");
    expect((failed as TypeError & { cause: Error & { code?: string } }).cause.code).toMatch(/SOCKET|ECONNRESET/);
    expect(seen).toHaveLength(1);

    const closed = await server(() => {});
    await closers.pop()!();
    const refused = await inngestFetch(closed.url).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TypeError);
    expect((refused as TypeError & { cause: NodeJS.ErrnoException }).cause.code).toBe("ECONNREFUSED");
  });

  it("gives up a request whose signal aborts, as fetch does", async () => {
    const { url } = await server(() => {});
    const controller = new AbortController();
    const pending = inngestFetch(url, { method: "POST", body: "{}", signal: controller.signal }).catch((error: unknown) => error);
    controller.abort();
    expect((await pending) as Error).toMatchObject({ name: "AbortError" });
  });

  it("leaves what it does not handle to the global fetch: a streamed body", async () => {
    const { url, seen } = await server((_req, _body, res) => res.end("ok"));
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("streamed"));
        controller.close();
      },
    });
    const response = await inngestFetch(url, { method: "POST", body, duplex: "half" } as RequestInit);
    expect(await response.text()).toBe("ok");
    expect(seen[0].body).toBe("streamed");
    // The global fetch's own headers say it was the one that sent it.
    expect(seen[0].headers["sec-fetch-mode"]).toBe("cors");
  });
});
