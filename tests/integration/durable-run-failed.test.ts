import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { SLOW_REPLY } from "../../scripts/mock-model-server.mjs";
import { oneDurableServer } from "../support/one-durable-server";

// A durable turn holds no lease: Inngest ends it, through the run's own catch
// or its retries. A server killed with SIGKILL mid-reply, and still down on
// the run's last attempt, runs no catch: the run fails for good with its turn
// open. Its failure handler (Inngest's onFailure, run once the server is
// back) ends the turn, so the same message sent again is answered and the
// thread takes a new message.

describe.skipIf(inject("embeddedDatabase"))("a durable run whose server dies on every attempt", () => {
  const server = oneDurableServer({ name: "durable_run_failed", retryDelayMs: 50, heldUntilBack: "-failure" });

  it("ends the turn once the run has failed: the same message sent again is answered once, and the thread takes a new message", { timeout: 120_000 }, async () => {
    const { standin, mock, chat, turnOf, stored } = server();
    const message = { id: randomUUID(), content: "[[slow]] cut off for good" };
    const answer = await chat({ message });
    expect(answer.status).toBe(200);
    const threadId = String(answer.headers["x-thread-id"]);
    await answer.stream.words(3);
    expect(await turnOf(message.id)).toBe("running");

    await server().kill();
    // Every attempt after the kill finds no server: the run fails for good, its turn still open.
    await expect.poll(() => server().chatRunOf(message.id)?.status, { timeout: 20_000 }).toBe("failed");
    expect(await turnOf(message.id)).toBe("running");

    await server().restart();
    await standin.idle();
    expect(await turnOf(message.id)).toBe("failed");
    expect(standin.runs.find((run) => run.fnId === "threadline-chat-turn-failure")?.status).toBe("completed");
    // A client still following the turn (through another server) hears its end rather than waiting for its idle timeout.
    const last = standin.published.filter((published) => published.channel.includes(server().turnIdOf(message.id))).at(-1);
    expect((last?.data as { messages: { chunk: unknown }[] }).messages.map((m) => m.chunk)).toEqual([
      { type: "error", errorText: "The server failed while answering. Please try again." },
    ]);

    // Retry: the same message sent again is answered, once.
    const calls = mock.requests.length;
    const again = await chat({ threadId, message });
    expect(again.status).toBe(200);
    await again.stream.toEnd();
    expect(again.stream.reply).toBe(SLOW_REPLY);
    expect(mock.requests.length).toBe(calls + 1);

    const next = { id: randomUUID(), content: "after the failed run" };
    const nextAnswer = await chat({ threadId, message: next });
    expect(nextAnswer.status).toBe(200);
    await nextAnswer.stream.toEnd();
    expect(nextAnswer.stream.reply).toContain('You said: "after the failed run"');
    await standin.idle();
    expect((await stored(threadId)).map((m) => [m.message_id, m.kind])).toEqual([
      [message.id, "user"],
      [expect.any(String), "assistant"],
      [next.id, "user"],
      [expect.any(String), "assistant"],
    ]);
  });
});
