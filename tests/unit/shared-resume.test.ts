import { afterEach, describe, expect, it, vi } from "vitest";
import { followSharedResume, type OpenStream } from "@/lib/client/live/shared-resume";

// The running reply the tabs of one thread follow over one request (a Web
// Lock says which tab opens it; a BroadcastChannel carries what it reads).
// Node has BroadcastChannel; the locks are a fake that queues requests as a
// browser does and grants the next one as soon as the holder lets go, which
// is sooner than the channel delivers a message posted just before.

function queuedLocks() {
  const queues = new Map<string, Array<() => void>>();
  const held = new Set<string>();
  const next = (name: string) => {
    const waiting = queues.get(name)?.shift();
    if (waiting) waiting();
    else held.delete(name);
  };
  return {
    request: (name: string, options: { signal?: AbortSignal }, callback: () => Promise<unknown>) =>
      new Promise((resolve, reject) => {
        const grant = () => {
          options.signal?.removeEventListener("abort", onAbort);
          held.add(name);
          callback()
            .then(resolve, reject)
            .finally(() => next(name));
        };
        const onAbort = () => {
          const queue = queues.get(name) ?? [];
          queues.set(
            name,
            queue.filter((waiting) => waiting !== grant),
          );
          reject(new DOMException("The request was aborted.", "AbortError"));
        };
        if (options.signal?.aborted) return onAbort();
        options.signal?.addEventListener("abort", onAbort, { once: true });
        if (held.has(name)) queues.set(name, [...(queues.get(name) ?? []), grant]);
        else grant();
      }),
  };
}

/** A resumed stream the test writes to, as the server would; aborting its request errors it, as a fetch's body. */
function serverStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  const encoder = new TextEncoder();
  return {
    open: (async ({ signal }) => {
      signal.addEventListener("abort", () => controller.error(new DOMException("The request was aborted.", "AbortError")), { once: true });
      return body;
    }) satisfies OpenStream,
    send: (id: string, data: string) => controller.enqueue(encoder.encode(`id: ${id}\ndata: ${data}\n\n`)),
    close: () => controller.close(),
  };
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
  return text;
}

/** Two tabs of a new thread following its running reply, the first in line for the lock: the streams they get. */
function twoTabs(openFirst: OpenStream, openSecond: OpenStream, firstTab = new AbortController()) {
  vi.stubGlobal("navigator", { locks: queuedLocks() });
  const threadId = crypto.randomUUID();
  return {
    first: followSharedResume(threadId, firstTab.signal, openFirst),
    second: followSharedResume(threadId, new AbortController().signal, openSecond),
  };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("the resumed stream the tabs of a thread share", () => {
  it("is opened once: a tab next in line when the reply ends opens no stream of its own", async () => {
    const server = serverStream();
    const openFirst = vi.fn<OpenStream>(server.open);
    const openSecond = vi.fn<OpenStream>(serverStream().open);

    const { first, second } = twoTabs(openFirst, openSecond);
    await vi.waitFor(() => expect(openFirst).toHaveBeenCalledTimes(1));
    server.send("7.0", '{"type":"text-delta","delta":"Hello"}');
    const [firstStream, secondStream] = await Promise.all([first, second]);
    server.close();

    const [firstText, secondText] = await Promise.all([readAll(firstStream!), readAll(secondStream!)]);
    expect(firstText).toContain("Hello");
    expect(secondText).toContain("Hello");
    // The lock passes to the second tab as the first lets go; the first's end is on its way, and ends it.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(openSecond).not.toHaveBeenCalled();
  });

  it("is opened once when the holder's page stops reading at the reply's finish, before the server closes the stream", async () => {
    const server = serverStream();
    const openSecond = vi.fn<OpenStream>(serverStream().open);

    const { first, second } = twoTabs(server.open, openSecond);
    server.send("7.0", '{"type":"text-delta","delta":"Hello"}');
    const secondStream = (await second)!;
    server.send("7.1", '{"type":"finish","finishReason":"stop"}');
    // The server keeps the response open a moment longer; the holder's page is done at the finish and cancels.
    const reader = (await first)!.getReader();
    let text = "";
    while (!text.includes('"finish"')) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();

    const secondText = await readAll(secondStream);
    expect(secondText).toContain('"finish"');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(openSecond).not.toHaveBeenCalled();
  });

  it("goes on from the last event it had when the tab that held the stream leaves mid-reply", async () => {
    const server = serverStream();
    const rest = serverStream();
    const firstTab = new AbortController();
    const openSecond = vi.fn<OpenStream>(rest.open);

    const { first, second } = twoTabs(server.open, openSecond, firstTab);
    server.send("7.0", '{"type":"text-delta","delta":"Hello"}');
    const secondStream = (await second)!;
    await first;
    firstTab.abort(); // the first tab shows another thread now

    await vi.waitFor(() => expect(openSecond).toHaveBeenCalledTimes(1));
    expect(openSecond.mock.calls[0][0].lastEventId).toBe("7.0");
    rest.send("7.1", '{"type":"text-delta","delta":" world"}');
    rest.close();
    const text = await readAll(secondStream);
    expect(text).toContain("Hello");
    expect(text).toContain(" world");
  });
});
