import "server-only";
import { z } from "zod";
import { AppError } from "@threadline/history/errors";
import { historyLengthSchema, historyPolicyNameSchema } from "@/lib/protocol/chat";
import { DEFAULT_POOL_SIZE, MAX_WORKERS } from "@/lib/server-workers.mjs";
import { DEFAULT_MAX_OUTPUT_TOKENS } from "@/lib/limits";

// How the app's configuration is read: every variable docs/configuration.md
// lists is declared in a slice, the core's here and each wing's in its own
// folder (lib/<wing>/settings.ts), with its type, default and bounds; the
// slices are put together in lib/settings.ts. Nothing else in the app reads
// process.env (the plain-Node start scripts aside), so a bad value is found
// once, at start (instrumentation.ts), and named in one line, instead of
// failing some later turn; the app is then built from what it parsed
// (lib/app.ts's createApp), and nothing below reads it again.

/** What reads the environment: process.env, or a record a test hands in. */
export type RawEnv = Record<string, string | undefined>;

export const wholeNumber = (min: number, max: number) => {
  const must = `must be a whole number from ${min} to ${max}`;
  return z
    .string()
    .regex(/^\d{1,15}$/, must)
    .transform(Number)
    .refine((n) => n >= min && n <= max, must);
};

export const url = z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" });
export const text = z.string();

/** 1 or 0 (true or false, any case), read as a boolean. */
export const flag = (fallback: boolean) =>
  z
    .string()
    .regex(/^(0|1|true|false)$/i, "must be 1 or 0")
    .transform((value) => /^(1|true)$/i.test(value))
    .default(fallback);

/** Stops the start with the one line that says what is wrong. */
export const fail = (message: string): never => {
  throw new AppError("internal:config", message);
};

/**
 * A part of the configuration: its variables, and what is worked out from
 * them once they parse (the rules between them, a value read and checked),
 * which throws through `fail` when it is wrong.
 */
export interface Slice<Shape extends z.ZodRawShape = z.ZodRawShape, Extra extends object = object> {
  shape: Shape;
  finish?(settings: z.output<z.ZodObject<Shape>>): Extra | void;
}

/** A slice as written: its types inferred. */
export const slice = <Shape extends z.ZodRawShape, Extra extends object = object>(part: Slice<Shape, Extra>): Slice<Shape, Extra> => part;

/** What a slice parses to: its variables' values and what it works out. */
export type SettingsOf<S> = S extends Slice<infer Shape, infer Extra> ? z.output<z.ZodObject<Shape>> & Extra : never;
type AllSettings<L> = L extends readonly [infer S, ...infer Rest] ? SettingsOf<S> & AllSettings<Rest> : unknown;
type NamesOf<S> = S extends Slice<infer Shape, object> ? keyof Shape & string : never;

const SECRET = /SECRET|_KEY$/;

/** A value as a start error may quote it: a URL's password (scheme://user:password@host) starred out. */
const withoutPassword = (value: string) => value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#:@]*:)[^/?#]*@/i, "$1***@");

/**
 * The configuration the slices make, read in their order: `names`, every
 * variable, and `parse`, which gives the configuration in a raw environment
 * (blank counts as unset) or throws an error whose one line names the first
 * bad variable, what it must be and what it was.
 */
export function settingsParser<const L extends readonly Slice[]>(slices: L) {
  const schema = z.object(Object.assign({}, ...slices.map((part) => part.shape)) as z.ZodRawShape);
  const names = Object.keys(schema.shape) as NamesOf<L[number]>[];
  function parse(raw: RawEnv): AllSettings<L> {
    const input: Record<string, string | undefined> = {};
    for (const name of names) input[name] = raw[name]?.trim() || undefined;
    const parsed = schema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const name = String(issue.path[0]);
      const value = input[name] ?? "";
      // A secret's value must not reach the log, even a wrong one, nor a password written into a URL.
      fail(`${name} ${issue.message}, not ${SECRET.test(name) ? `a ${value.length}-character value` : `"${withoutPassword(value)}"`}.`);
    }
    const settings: Record<string, unknown> = { ...parsed.data };
    for (const part of slices) Object.assign(settings, part.finish?.(parsed.data!));
    return settings as AllSettings<L>;
  }
  return { names, parse };
}

/** The variables `names` as this process's environment holds them. */
export function readEnvironment(names: readonly string[]): RawEnv {
  const raw: RawEnv = {};
  for (const name of names) raw[name] = process.env[name];
  return raw;
}

/** The variables of no wing: the database, identity, the server, the turns and Inngest. */
export const coreSettings = slice({
  shape: {
    // Database
    /** Postgres connection string; the start script sets it to the embedded database when unset. */
    DATABASE_URL: text.optional().describe("Postgres connection string"),
    /** Where the embedded Postgres keeps its data (read by the start script, checked here too). */
    EMBEDDED_DB_DIR: text.default(".data/pglite").describe("embedded Postgres data folder"),
    /** Connections to the database, all server workers together: the start script gives each worker its share (and 1 for the embedded database). */
    DATABASE_POOL_SIZE: wholeNumber(1, 1000).default(DEFAULT_POOL_SIZE).describe("database connections, shared by the workers"),

    // Identity
    /** Key that signs the identity cookie; unset: generated once and kept in the database. */
    SESSION_SECRET: text.min(32, "must be at least 32 characters long").optional().describe("cookie-signing key"),

    // Agents
    /** The agents' system prompt; unset: a short helpful-assistant prompt. */
    SYSTEM_PROMPT: text.optional().describe("system prompt"),

    // Server
    /** Where the server listens (read by Next.js and the start script). */
    PORT: wholeNumber(0, 65535).optional().describe("listening port"),
    /** The address the server listens on (read by Next.js and the start script). */
    HOSTNAME: text.optional().describe("listening host name"),
    /** Server workers `npm start` runs (read by the start script); unset: one per core. The embedded database always gets one. */
    WEB_CONCURRENCY: wholeNumber(1, MAX_WORKERS).optional().describe("server workers"),
    /** Reverse proxies in front of the app that append to X-Forwarded-For (read by the start script's preload). */
    TRUSTED_PROXY_HOPS: wholeNumber(0, 99).default(0).describe("trusted reverse proxies"),
    /** 1: every response names the server worker that sent it (X-Worker: its pid), for telling workers apart; read by the workers' preload too. */
    WORKER_HEADER: flag(false).describe("X-Worker header"),
    /** Set by Next.js: development, production or test. */
    NODE_ENV: z
      .enum(["development", "production", "test"], { error: "must be development, production or test" })
      .optional()
      .describe("Next.js mode"),

    // Limits (each wing's own are in its slice)
    /** Chat turns per identity per minute; 0: off. */
    RATE_LIMIT_CHAT_PER_MINUTE: wholeNumber(0, 999_999_999).default(20).describe("chat turns per identity per minute"),
    /** Chat turns per client address per minute, across identities; 0: off. */
    RATE_LIMIT_CHAT_PER_MINUTE_PER_ADDRESS: wholeNumber(0, 999_999_999).default(120).describe("chat turns per address per minute"),
    /** New anonymous identities per client address per hour; 0: off. */
    RATE_LIMIT_NEW_IDENTITIES_PER_HOUR: wholeNumber(0, 999_999_999).default(60).describe("new identities per address per hour"),
    /** Forks per identity per minute; 0: off. */
    RATE_LIMIT_FORKS_PER_MINUTE: wholeNumber(0, 999_999_999).default(10).describe("forks per identity per minute"),
    /** Forks per client address per minute, across identities; 0: off. */
    RATE_LIMIT_FORKS_PER_MINUTE_PER_ADDRESS: wholeNumber(0, 999_999_999).default(60).describe("forks per address per minute"),
    /** Imports per identity per hour; 0: off. */
    RATE_LIMIT_IMPORTS_PER_HOUR: wholeNumber(0, 999_999_999).default(20).describe("imports per identity per hour"),
    /** Imports per client address per hour, across identities; 0: off. */
    RATE_LIMIT_IMPORTS_PER_HOUR_PER_ADDRESS: wholeNumber(0, 999_999_999).default(60).describe("imports per address per hour"),
    /** Live streams (a running reply followed, the threads' news) one identity may hold open, across servers; 0: no cap. */
    MAX_LIVE_STREAMS_PER_IDENTITY: wholeNumber(0, 999_999).default(20).describe("live streams per identity"),

    // History
    /** The operator's history policy, over any URL's; unset: each agent's own. Read on the server only. */
    NEXT_PUBLIC_DEFAULT_HISTORY_POLICY: historyPolicyNameSchema.optional().describe("history policy"),
    /** N for lastN; unset: 10. Read on the server only. */
    NEXT_PUBLIC_DEFAULT_HISTORY_LENGTH: historyLengthSchema.optional().describe("history length"),

    // Turns
    /** A running turn's claim on its message, renewed while it runs. */
    TURN_LEASE_SECONDS: wholeNumber(1, 999_999).default(30).describe("turn lease, seconds"),
    /** How often a running turn writes what it streamed since (turn_progress), for a reload or another server to resume from. */
    STREAM_PROGRESS_MS: wholeNumber(10, 60_000).default(200).describe("stream progress interval, milliseconds"),
    /** How long a finished reply keeps trying to be stored while the database is away. */
    SAVE_RETRY_SECONDS: wholeNumber(1, 999_999).default(30).describe("save retry, seconds"),
    /** A model silent this long mid-answer is cut off (bounded so the timer's milliseconds fit). */
    MODEL_IDLE_TIMEOUT_SECONDS: wholeNumber(1, 999_999).default(30).describe("model idle timeout, seconds"),
    /** The most one turn may take. */
    TURN_TIMEOUT_SECONDS: wholeNumber(1, 999_999).default(600).describe("turn timeout, seconds"),
    /** How long the model may take to title a thread after its first reply; 0: threads keep their first words. */
    TITLE_TIMEOUT_SECONDS: wholeNumber(0, 600).default(5).describe("title timeout, seconds"),
    /** The most tokens one answer's model call may write; a budget may allow less (lib/budgets/). */
    MAX_OUTPUT_TOKENS: wholeNumber(16, 1_000_000).default(DEFAULT_MAX_OUTPUT_TOKENS).describe("model output cap, tokens"),
    /** The most characters of conversation one turn may send to the model (about 100,000 tokens). */
    MAX_MODEL_INPUT_CHARS: wholeNumber(1, 999_999_999).default(400_000).describe("model input cap, characters"),

    // Inngest (also read by the Inngest SDK itself)
    /** A self-hosted or cloud Inngest's event key. */
    INNGEST_EVENT_KEY: text.optional().describe("Inngest event key"),
    /** Its signing key: requests to /api/inngest must carry its signature. */
    INNGEST_SIGNING_KEY: text.optional().describe("Inngest signing key"),
    /** A self-hosted Inngest, e.g. http://inngest:8288. */
    INNGEST_BASE_URL: url.optional().describe("Inngest base URL"),
    /** 1 or a dev server URL: run turns on an Inngest dev server. Kept as written: the SDK and the start script read it too. */
    INNGEST_DEV: z
      .string()
      .refine((value) => /^(0|1|true|false)$/i.test(value) || url.safeParse(value).success, "must be 1, 0 or a dev server's http:// URL")
      .optional()
      .describe("Inngest dev server"),
    /** 1: the dev server and the app are reachable only from this machine, so production may use INNGEST_DEV. Kept as written, as INNGEST_DEV. */
    INNGEST_DEV_IS_LOCAL: text.optional().describe("Inngest dev server is local"),
    /** 0: Inngest calls /api/inngest once per step instead of running a turn's steps in one request and checkpointing each. */
    INNGEST_CHECKPOINTING: flag(true).describe("Inngest checkpointing"),
    /** How long one request to /api/inngest may run a function's steps before the rest go on in new requests; 0: no limit (an always-on server). */
    INNGEST_MAX_RUNTIME_SECONDS: wholeNumber(0, 999_999).default(0).describe("Inngest request runtime, seconds"),
  },
});

/** The core's configuration: what the app's own parts read, whichever wings it has. */
export type CoreSettings = SettingsOf<typeof coreSettings>;
