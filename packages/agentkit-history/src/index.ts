// Threadline's Postgres history as an AgentKit HistoryConfig. The storage is
// the history package's adapter (@threadline/history), the one the app runs
// on, imported, not copied: the app and an AgentKit network write the same rows, so a thread an AgentKit
// app wrote opens in Threadline with its tool cards.
//
// How AgentKit (0.13) calls the hooks, and what each does about it:
// - createThread on every run, with the client's thread id in state when it
//   has one: an upsert; another owner's thread, or an id that cannot be a
//   thread, is not found.
// - appendUserMessage before get: it stores the message at once (kept even if
//   the model then fails), and get leaves that message out (AgentKit puts the
//   input in the prompt itself). AgentKit ignores what a hook returns, so a
//   message id the thread already holds is refused with an error, not
//   answered a second time.
// - appendResults only after a run succeeded: one reply, one statement.
// - step, under Inngest: each store call is a step, run once across replays;
//   a refusal fails its step without retries.
import { existsSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { AgentResult, History, State, StateData } from "@inngest/agent-kit";
import { NonRetriableError } from "inngest";
import type pg from "pg";
import { z } from "zod";
import { PostgresHistoryAdapter, type SummaryMessage } from "@threadline/history";
import { AppError, duplicateMessage } from "@threadline/history/errors";
import { migrate as migrateDatabase, migrateOn } from "@threadline/history/migrate";
import { summaryForModel } from "@threadline/history/summary-for-model";
import type { StoredMessage } from "@threadline/history/messages";
import { sourceIdSchema, sourceMetadataSchema, type ThreadOrigin } from "@threadline/history/thread-source";
import { messagesToResults, resultsToParts } from "./agent-results.js";
import type { AgentKitHistory, AgentKitHistoryOptions, MigrateOptions, ThreadlineError } from "./types.js";

export type { AgentKitHistory, AgentKitHistoryOptions, MigrateOptions, ThreadlineError } from "./types.js";

type Step = History.Context<StateData>["step"];

/** The options' sourceId and sourceMetadata, as Threadline keeps them (packages/history/src/thread-source.ts). */
const agentKitOrigin = z.object({ sourceId: sourceIdSchema.optional(), sourceMetadata: sourceMetadataSchema.optional() });

/** Whether an error is one of Threadline's refusals (see ThreadlineError). */
export function isThreadlineError(error: unknown): error is ThreadlineError {
  return error instanceof AppError;
}

/** Only refusals are final: a database that is down may be up on the step's next try. */
const final = (error: unknown) => error instanceof AppError && error.kind !== "unavailable" && error.kind !== "internal";

/** `work` as a step when AgentKit runs under Inngest (memoized across replays), else at once. */
async function durably<T>(step: Step, id: string, work: () => Promise<T>): Promise<T> {
  if (!step) return work();
  const run = step.run as (id: string, fn: () => Promise<unknown>) => Promise<unknown>;
  const value = await run(id, async () => {
    try {
      return await work();
    } catch (error) {
      if (final(error)) throw new NonRetriableError((error as Error).message, { cause: error });
      throw error;
    }
  });
  return value as T;
}

/** What one run of a network keeps between its hooks (they share its State object). */
interface RunMemory {
  /** This run's turn: a retried step of it finds its own user message, a resend finds another turn's. */
  turnId: string;
  /** The user's message stored by this run, which get leaves out. */
  messageId?: string;
}

/**
 * Threadline's Postgres history for `createNetwork({ history })` (or
 * `createAgent`). The database must hold Threadline's schema: run `migrate()`
 * first, or point it at a Threadline app's database.
 */
export function agentKitHistory<T extends StateData = StateData>(pool: pg.Pool, options: AgentKitHistoryOptions<T>): AgentKitHistory<T> {
  if (typeof options?.owner !== "string" && typeof options?.owner !== "function") {
    throw new TypeError("agentKitHistory needs an owner: whose threads the network reads and writes.");
  }
  const adapter = new PostgresHistoryAdapter(pool);
  const runs = new WeakMap<State<T>, RunMemory>();
  const ownerOf = (state: State<T>): string => {
    const owner = typeof options.owner === "function" ? options.owner({ state }) : options.owner;
    if (typeof owner !== "string" || owner.length === 0) throw new TypeError("agentKitHistory: the owner must be a non-empty string.");
    return owner;
  };
  const memoryOf = (state: State<T>): RunMemory => {
    let memory = runs.get(state);
    if (!memory) runs.set(state, (memory = { turnId: randomUUID() }));
    return memory;
  };
  const threadOf = (ctx: { state: State<T>; threadId?: string }): string => ctx.threadId ?? ctx.state.threadId ?? "";
  const originOf = (state: State<T>): ThreadOrigin => {
    const sourceId = typeof options.sourceId === "function" ? options.sourceId({ state }) : options.sourceId;
    const sourceMetadata = typeof options.sourceMetadata === "function" ? options.sourceMetadata({ state }) : options.sourceMetadata;
    const checked = agentKitOrigin.safeParse({ sourceId, sourceMetadata });
    if (!checked.success) throw new TypeError(`agentKitHistory: ${checked.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}.`);
    return { source: "agentkit", sourceId: checked.data.sourceId ?? null, sourceMetadata: checked.data.sourceMetadata ?? null };
  };

  return {
    async createThread({ state, step }) {
      const owner = ownerOf(state);
      const origin = originOf(state);
      const { threadId, turnId } = await durably(step, "threadline-create-thread", async () => {
        const { threadId } = await adapter.createThread({ owner, threadId: state.threadId, origin });
        return { threadId, turnId: randomUUID() };
      });
      runs.set(state, { turnId });
      return { threadId };
    },

    async appendUserMessage(ctx) {
      const { state, step, userMessage } = ctx;
      const owner = ownerOf(state);
      const memory = memoryOf(state);
      const threadId = threadOf(ctx);
      await durably(step, "threadline-append-user-message", async () => {
        const message = { id: userMessage.id, role: "user" as const, content: userMessage.content };
        const { duplicate } = await adapter.appendUserMessage({ owner, threadId, turnId: memory.turnId, message });
        if (duplicate) throw duplicateMessage();
        return null;
      });
      memory.messageId = userMessage.id;
    },

    async get(ctx): Promise<AgentResult[]> {
      const { state, step } = ctx;
      const owner = ownerOf(state);
      const threadId = threadOf(ctx);
      const { summary, messages } = await durably(step, "threadline-get-history", async () => {
        const summary = await adapter.summaries.latest({ owner, threadId });
        const fromSeq = summary ? summary.parts[0].throughSeq + 1 : undefined;
        return { summary, messages: await adapter.get({ owner, threadId, fromSeq }) };
      });
      const stored = runs.get(state)?.messageId;
      return messagesToResults(
        (messages as StoredMessage[]).filter((m) => m.id !== stored),
        summary ? summaryForModel((summary as SummaryMessage).parts[0]) : undefined,
      );
    },

    async appendResults(ctx) {
      const { state, step, newResults } = ctx;
      const parts = resultsToParts(newResults);
      if (parts.length === 0) return;
      const owner = ownerOf(state);
      const threadId = threadOf(ctx);
      // Stable across replays and retries (AgentKit takes result ids from a step), so a retried step stores the reply once.
      const id = newResults.find((r) => r.id)?.id ?? memoryOf(state).turnId;
      await durably(step, "threadline-append-results", async () => {
        await adapter.appendResults({ owner, threadId, reply: { id, role: "assistant", parts, status: "complete" } });
        return null;
      });
    },
  };
}

/** Where dist/index.js finds the migrations and functions build.mjs copied beside it; from the sources, the repository's own. */
function copiedDirs(): { dir?: string; functionsDir?: string } {
  const dir = fileURLToPath(new URL("./migrations", import.meta.url));
  const functionsDir = fileURLToPath(new URL("./functions", import.meta.url));
  return existsSync(dir) ? { dir, functionsDir } : {};
}

/**
 * Creates or updates Threadline's tables and functions in the database (a
 * pool, or its URL); the names of the migrations it ran, then
 * `db/functions/<name>` for each database function it (re)defined. Safe to run from
 * several processes at once: the others wait, then find nothing to do.
 */
export async function migrate(database: pg.Pool | string, options: MigrateOptions = {}): Promise<string[]> {
  const dirs = copiedDirs();
  if (typeof database === "string") return migrateDatabase(database, { ...options, ...dirs });
  const client = await database.connect();
  try {
    return await migrateOn(client, { ...options, ...dirs });
  } finally {
    // Destroyed, not returned to the pool: the migration lock is its session's.
    client.release(true);
  }
}
