import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { buildModelMessages, shouldLoadHistory, threadIdForFirstMessage } from "@/lib/agent/turn/lifecycle";
import { createNetwork } from "@/lib/agent/network/network";
import { runTurn, type StepRunner, type TurnInput } from "@/lib/agent/turn/turn";
import { userMessage, type ThreadMessage } from "@threadline/history/parts";
import { MemoryHistory } from "../support/memory-history";
import { scriptedModel } from "../support/scripted-model";

const OWNER = "owner-a";
const GIVEN = "22222222-2222-4222-8222-222222222222";
const message = { id: "msg-1", role: "user" as const, content: "Hello there" };

async function turn(input: Partial<TurnInput>, history: MemoryHistory, model = scriptedModel(["Hi", " you"]).model) {
  const chunks: UIMessageChunk[] = [];
  const steps: string[] = [];
  const step: StepRunner = (id, work) => {
    steps.push(id);
    return work();
  };
  const outcome = await runTurn(
    { owner: OWNER, turnId: "turn-1", message, ...input },
    {
      history,
      network: createNetwork({ model, agents: [{ name: "assistant", system: "Be brief." }] }),
      publish: (c) => void chunks.push(c),
      step,
      generateId: (() => {
        let n = 0;
        return () => `generated-${++n}`;
      })(),
    },
  );
  return { outcome, chunks, steps };
}

describe("thread id resolution (the lifecycle table)", () => {
  it("client id: opening the turn upserts the given id", async () => {
    const history = new MemoryHistory();
    history.seed(OWNER, GIVEN);
    const { outcome } = await turn({ threadId: GIVEN, clientHistory: [] }, history);
    expect(history.calls[0]).toMatchObject({ hook: "openTurn", args: { owner: OWNER, threadId: GIVEN, messageId: message.id } });
    expect(outcome.threadId).toBe(GIVEN);
  });

  it("no id: the thread is made with an id named after the first message, and that id is used", async () => {
    const history = new MemoryHistory();
    const { outcome } = await turn({}, history);
    const named = threadIdForFirstMessage(OWNER, message.id);
    expect(history.calls[0]).toMatchObject({ hook: "openTurn", args: { owner: OWNER, threadId: named } });
    expect(outcome.threadId).toBe(named);
    expect(outcome.historySource).toBe("new");
  });
});

describe("when get runs", () => {
  it("loads history for a client-given existing thread when the client sent none", async () => {
    const history = new MemoryHistory();
    history.seed(OWNER, GIVEN, [{ ...userMessage("old-1", "Earlier question"), seq: 1, createdAt: "2026-01-01T00:00:00Z", status: "complete" }]);
    const { model, prompts } = scriptedModel(["ok"]);
    const { outcome } = await turn({ threadId: GIVEN }, history, model);
    expect(history.hooks()).toEqual(["openTurn", "get", "appendResults"]);
    expect(outcome.historySource).toBe("database");
    expect(JSON.stringify(prompts[0])).toContain("Earlier question");
  });

  it("skips get when the client sent its history (even an empty one)", async () => {
    const history = new MemoryHistory();
    history.seed(OWNER, GIVEN);
    const { outcome } = await turn({ threadId: GIVEN, clientHistory: [] }, history);
    expect(history.hooks()).not.toContain("get");
    expect(outcome.historySource).toBe("client");
  });

  it("skips get when the given thread was created by this turn's upsert", async () => {
    const history = new MemoryHistory();
    const { outcome } = await turn({ threadId: GIVEN }, history);
    expect(history.hooks()).not.toContain("get");
    expect(outcome.historySource).toBe("new");
  });

  it("skips get when no thread id came from the client", async () => {
    const history = new MemoryHistory();
    await turn({}, history);
    expect(history.hooks()).not.toContain("get");
  });

  it("shouldLoadHistory needs all four conditions", () => {
    const all = { clientThreadId: true, clientSentHistory: false, createdThisTurn: false, hasGet: true };
    expect(shouldLoadHistory(all)).toBe(true);
    expect(shouldLoadHistory({ ...all, clientThreadId: false })).toBe(false);
    expect(shouldLoadHistory({ ...all, clientSentHistory: true })).toBe(false);
    expect(shouldLoadHistory({ ...all, createdThisTurn: true })).toBe(false);
    expect(shouldLoadHistory({ ...all, hasGet: false })).toBe(false);
  });
});

describe("appendUserMessage and appendResults", () => {
  it("stores the user's message with the client's id before the model runs", async () => {
    const history = new MemoryHistory();
    const { model, prompts } = scriptedModel(["ok"]);
    let modelCallsAtOpen = -1;
    const open = history.turns.openTurn;
    history.turns.openTurn = async (args) => {
      modelCallsAtOpen = prompts.length;
      return open(args);
    };
    const { outcome } = await turn({}, history, model);
    expect(modelCallsAtOpen).toBe(0);
    expect(history.calls.find((c) => c.hook === "openTurn")?.args).toMatchObject({ message, turnId: "turn-1" });
    expect(await history.get({ owner: OWNER, threadId: outcome.threadId })).toMatchObject([{ id: message.id, role: "user" }, { role: "assistant" }]);
  });

  it("answers a message id it has answered already with the stored reply, without calling the model again", async () => {
    const history = new MemoryHistory();
    const { model, prompts } = scriptedModel(["ok"]);
    const first = await turn({}, history, model);
    const again = await turn({ turnId: "turn-2" }, history, model);
    expect(prompts).toHaveLength(1);
    expect(again.outcome.threadId).toBe(first.outcome.threadId);
    expect(again.outcome.historySource).toBe("database");
    expect(again.outcome.reply).toMatchObject({ id: first.outcome.reply!.id, parts: [{ type: "text", text: "ok" }] });
    expect(history.hooks().filter((h) => h === "appendResults")).toHaveLength(1);
  });

  it("refuses another message while the thread's turn runs, and stores nothing of it", async () => {
    const history = new MemoryHistory();
    history.seed(OWNER, GIVEN);
    await history.turns.openTurn({ owner: OWNER, threadId: GIVEN, messageId: "running", turnId: "turn-0", message: { ...message, id: "running" }, leaseMs: null });
    const { model, prompts } = scriptedModel(["never"]);
    await expect(turn({ threadId: GIVEN }, history, model)).rejects.toMatchObject({ code: "conflict:turn_in_progress" });
    expect(prompts).toHaveLength(0);
    expect((await history.get({ owner: OWNER, threadId: GIVEN })).map((m) => m.id)).toEqual(["running"]);
  });

  it("appends only this run's results, once, after the run", async () => {
    const history = new MemoryHistory();
    history.seed(OWNER, GIVEN);
    const clientHistory: (ThreadMessage & { seq: number })[] = [
      { ...userMessage("old-1", "Q"), seq: 1 },
      { id: "old-2", role: "assistant", parts: [{ type: "text", text: "A" }], seq: 2 },
    ];
    const { outcome } = await turn({ threadId: GIVEN, clientHistory }, history);
    const appends = history.calls.filter((c) => c.hook === "appendResults");
    expect(appends).toHaveLength(1);
    expect(appends[0].args.reply).toEqual({
      id: "generated-1",
      role: "assistant",
      parts: [{ type: "text", text: "Hi you", agentName: "assistant" }],
      status: "complete",
      // What its one model call spent, as the model reported it, stored with it; a network without a model id names none.
      usage: [{ id: expect.any(String), agent: "assistant", purpose: "answer", model: "unknown", inputTokens: 1, outputTokens: 1, cachedTokens: 0, reasoningTokens: 0 }],
    });
    expect(outcome.status).toBe("complete");
  });

  it("does not append results when the model fails, and streams a plain error without the failure's own text", async () => {
    const history = new MemoryHistory();
    const { model } = scriptedModel([], { failWith: new Error("upstream exploded") });
    const { outcome, chunks } = await turn({}, history, model);
    expect(history.hooks()).toEqual(["openTurn", "finishTurn"]);
    expect(outcome.status).toBe("failed");
    const error = chunks.find((c) => c.type === "error");
    expect(error).toMatchObject({ type: "error" });
    expect((error as { errorText: string }).errorText).toBe("The model's answer broke off. Please try again.");
  });
});

describe("the model's input", () => {
  it("is never sent when history and message exceed the network's cap: the message is kept, the turn ends with a plain error", async () => {
    const history = new MemoryHistory();
    history.seed(OWNER, GIVEN, [{ ...userMessage("old", "x".repeat(40)), seq: 1, createdAt: "2026-01-01T00:00:00Z", status: "complete" }]);
    const { model, prompts } = scriptedModel(["never"]);
    const chunks: UIMessageChunk[] = [];
    const outcome = await runTurn(
      { owner: OWNER, turnId: "turn-1", message, threadId: GIVEN, clientHistory: [{ ...userMessage("old", "x".repeat(40)), seq: 1 }] },
      {
        history,
        network: createNetwork({ model, agents: [{ name: "assistant", system: "Be brief." }], maxInputChars: 50 }),
        publish: (c) => void chunks.push(c),
      },
    );
    expect(outcome.status).toBe("failed");
    expect(prompts).toHaveLength(0);
    expect(history.hooks()).toEqual(["openTurn", "finishTurn"]);
    expect(chunks.find((c) => c.type === "error")).toEqual({
      type: "error",
      errorText: "This thread is too long to send to the model (51 characters; the limit is 50). Start a new thread to go on.",
    });
  });

  it("holds the new message exactly once when the client's history already contains it", async () => {
    const history = new MemoryHistory();
    history.seed(OWNER, GIVEN, [{ ...userMessage("old", "First"), seq: 1, createdAt: "2026-01-01T00:00:00Z", status: "complete" }]);
    const { model, prompts } = scriptedModel(["ok"]);
    await turn(
      { threadId: GIVEN, clientHistory: [{ ...userMessage("old", "First"), seq: 1 }, { ...userMessage(message.id, message.content), seq: 2 }] },
      history,
      model,
    );
    const userTexts = prompts[0].filter((m) => m.role === "user").map((m) => JSON.stringify(m.content));
    expect(userTexts.filter((t) => t.includes("Hello there"))).toHaveLength(1);
    expect(userTexts).toHaveLength(2);
  });

  it("buildModelMessages keeps order and appends the new message last", () => {
    const built = buildModelMessages(
      [userMessage("a", "1"), { id: "b", role: "assistant", parts: [{ type: "text", text: "2" }] }],
      message,
    );
    expect(built).toEqual([
      { role: "user", content: "1" },
      { role: "assistant", content: [{ type: "text", text: "2" }] },
      { role: "user", content: "Hello there" },
    ]);
  });
});

describe("the stream", () => {
  it("announces the thread first, then streams text deltas in order, then finishes", async () => {
    const history = new MemoryHistory();
    const { chunks } = await turn({}, history, scriptedModel(["One", " two", " three"]).model);
    expect(chunks[0]).toEqual({
      type: "data-thread",
      data: { threadId: threadIdForFirstMessage(OWNER, message.id), historySource: "new" },
      transient: true,
    });
    const deltas = chunks.filter((c) => c.type === "text-delta").map((c) => (c as { delta: string }).delta);
    // The first goes out at once; the rest, arriving together, may travel as one.
    expect(deltas[0]).toBe("One");
    expect(deltas.join("")).toBe("One two three");
    expect(chunks.at(-1)).toMatchObject({ type: "finish" });
  });
});
