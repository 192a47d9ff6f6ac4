import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { SLOW_REPLY } from "../../scripts/mock-model-server.mjs";
import { oneDurableServer } from "../support/one-durable-server";

// A durable turn holds no lease: its run ends it. A run cancelled from
// Inngest's dashboard or REST API stops between steps and runs no catch and no
// failure handler; Inngest sends inngest/function.cancelled instead, and the
// app's handler of it ends the turn the run had opened, so the thread takes
// the next message. A step running when the cancel comes runs to its end (as
// Inngest lets it), but the one after it, which stores the reply, does not:
// the client sees the words, then hears the reply was not kept.

const CANCELLED = "This reply was cancelled on the server. Send your message again for an answer.";

describe.skipIf(inject("embeddedDatabase"))("a durable run cancelled from Inngest", () => {
  // Retries 5 s apart: long enough to cancel a run while it waits to retry an attempt its killed server dropped.
  const server = oneDurableServer({ name: "durable_run_cancelled", retryDelayMs: 5_000, heldUntilBack: "-cancelled" });

  /** What an operator does from Inngest's dashboard: its REST API's cancel. */
  const cancel = async (runId: string) => (await fetch(`${server().standin.url}/v1/runs/${runId}`, { method: "DELETE" })).status;

  /** The same message sent again is answered, with one model call; then the thread takes a new message. */
  async function answeredAgain(threadId: string, message: { id: string; content: string }) {
    const calls = server().mock.requests.length;
    const again = await server().chat({ threadId, message });
    expect(again.status).toBe(200);
    await again.stream.toEnd();
    expect(again.stream.reply).toBe(SLOW_REPLY);
    expect(server().mock.requests.length).toBe(calls + 1);

    const next = { id: randomUUID(), content: "after the cancelled run" };
    const answer = await server().chat({ threadId, message: next });
    expect(answer.status).toBe(200);
    await answer.stream.toEnd();
    expect(answer.stream.reply).toContain(`You said: "${next.content}"`);
    await server().standin.idle();
    expect((await server().stored(threadId)).map((m) => [m.message_id, m.kind])).toEqual([
      [message.id, "user"],
      [expect.any(String), "assistant"],
      [next.id, "user"],
      [expect.any(String), "assistant"],
    ]);
  }

  it("cancelled while it waits to retry its killed server's attempt: its turn ends, the client hears why, the same message sent again is answered once", { timeout: 120_000 }, async () => {
    const { standin, chat, turnOf } = server();
    const message = { id: randomUUID(), content: "[[slow]] cancelled between attempts" };
    const answer = await chat({ message });
    expect(answer.status).toBe(200);
    const threadId = String(answer.headers["x-thread-id"]);
    await answer.stream.words(3);

    await server().kill();
    // The attempt the server dropped has failed; the run waits to try again.
    await expect.poll(() => server().chatRunOf(message.id)?.requests.some((request) => request.status === 0), { timeout: 20_000 }).toBe(true);
    const run = server().chatRunOf(message.id)!;
    expect(await cancel(run.id)).toBe(200);
    await expect.poll(() => run.status, { timeout: 10_000 }).toBe("cancelled");
    // No attempt followed the cancel, and nothing ended the turn yet.
    expect(run.requests).toHaveLength(1);
    expect(await turnOf(message.id)).toBe("running");

    await server().restart();
    await standin.idle();
    expect(standin.runs.find((r) => r.fnId === "threadline-chat-turn-cancelled")?.status).toBe("completed");
    expect(await turnOf(message.id)).toBe("failed");
    // A client still following the turn (through another server) hears its end rather than waiting for its idle timeout.
    const last = standin.published.filter((published) => published.channel.includes(server().turnIdOf(message.id))).at(-1);
    expect((last?.data as { messages: { chunk: unknown }[] }).messages.map((m) => m.chunk)).toEqual([{ type: "error", errorText: CANCELLED }]);

    await answeredAgain(threadId, message);
  });

  it("cancelled while its server writes the reply: the words come to their end, the client then hears that the reply was not kept, and the same message sent again is answered", { timeout: 120_000 }, async () => {
    const { standin, chat, turnOf, stored } = server();
    const message = { id: randomUUID(), content: "[[slow]] cancelled mid-reply" };
    const answer = await chat({ message });
    expect(answer.status).toBe(200);
    const threadId = String(answer.headers["x-thread-id"]);
    await answer.stream.words(3);

    const run = server().chatRunOf(message.id)!;
    expect(await cancel(run.id)).toBe(200);
    // The model's step runs to its end, as Inngest lets a running step; the step that stores the reply never runs.
    await answer.stream.toEnd();
    expect(answer.stream.reply).toBe(SLOW_REPLY);
    expect(answer.stream.chunks.at(-1)).toEqual({ type: "error", errorText: CANCELLED });
    await standin.idle();
    expect(run.status).toBe("cancelled");
    expect(run.steps).not.toContain("append-results");
    expect(await turnOf(message.id)).toBe("failed");
    expect((await stored(threadId)).map((m) => m.kind)).toEqual(["user"]);

    await answeredAgain(threadId, message);
  });
});
