import "server-only";
import { z } from "zod";
import { DEFAULT_COMPACTION, type CompactionSettings } from "@/lib/compaction-settings";
import { AppError } from "@threadline/history/errors";
import { historyLengthSchema, historyPolicyNameSchema } from "@/lib/protocol/chat";
import { DEFAULT_POOL_SIZE, MAX_WORKERS } from "@/lib/server-workers.mjs";
import { TOOL_APPROVAL_MODES } from "@/lib/protocol/approvals";
import { modelsWithImagesError, parseModelList, parseUtilityModel } from "@/lib/model-list";
import { parseMcpServers, type McpServerConfig } from "@/lib/mcp-config";
import { parseModelPrices } from "@/lib/model-prices";

// The app's configuration, in one place: every variable docs/configuration.md
// lists, with its type, default and bounds. Nothing else in the app reads
// process.env (the plain-Node start scripts aside), so a bad value is found
// once, at start (instrumentation.ts), and named in one line, instead of
// failing some later turn; the app is then built from what it parsed
// (lib/app.ts's createApp), and nothing below reads it again.

/** What reads the environment: process.env, or a record a test hands in. */
export type RawEnv = Record<string, string | undefined>;

const wholeNumber = (min: number, max: number) => {
  const must = `must be a whole number from ${min} to ${max}`;
  return z
    .string()
    .regex(/^\d{1,15}$/, must)
    .transform(Number)
    .refine((n) => n >= min && n <= max, must);
};

const url = z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" });
const text = z.string();

const schema = z.object({
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

  // Model
  /** Which provider answers; unset: the first configured credential, else offline. */
  MODEL_PROVIDER: z
    .enum(["openai", "anthropic", "openai-compatible", "offline"], {
      error: "must be one of openai, anthropic, openai-compatible, offline",
    })
    .optional()
    .describe("model provider"),
  /** Model id; unset: the provider's default. */
  MODEL: text.optional().describe("model id"),
  /** The models on offer, `provider:model[=label]`, comma-separated, the first the default (lib/model-list.ts); unset: what the credentials allow. */
  MODELS: text.max(4000).optional().describe("models on offer"),
  /** Models that see images beyond the built-in table, `provider:model`, comma-separated (a local vision model, say). */
  MODELS_WITH_IMAGES: text.max(4000).optional().describe("models that see images"),
  /** Prices per million tokens by model, JSON, over the built-in table (lib/model-prices.ts). */
  MODEL_PRICES: text.max(100_000).optional().describe("model prices"),
  /** The model titles and summaries are asked of, `provider:model`; unset: the thread's own model. */
  UTILITY_MODEL: text.max(300).optional().describe("utility model"),
  /** OpenAI's key. */
  OPENAI_API_KEY: text.optional().describe("OpenAI API key"),
  /** Another OpenAI endpoint (a proxy, Azure's). */
  OPENAI_BASE_URL: url.optional().describe("OpenAI base URL"),
  /** Anthropic's key. */
  ANTHROPIC_API_KEY: text.optional().describe("Anthropic API key"),
  /** Another Anthropic endpoint. */
  ANTHROPIC_BASE_URL: url.optional().describe("Anthropic base URL"),
  /** Any OpenAI-compatible server, e.g. Ollama at http://localhost:11434/v1. */
  OPENAI_COMPATIBLE_BASE_URL: url.optional().describe("OpenAI-compatible base URL"),
  /** That server's key, if it wants one. */
  OPENAI_COMPATIBLE_API_KEY: text.optional().describe("OpenAI-compatible API key"),
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
  WORKER_HEADER: z
    .string()
    .regex(/^(0|1|true|false)$/i, "must be 1 or 0")
    .transform((value) => /^(1|true)$/i.test(value))
    .default(false)
    .describe("X-Worker header"),
  /** Set by Next.js: development, production or test. */
  NODE_ENV: z
    .enum(["development", "production", "test"], { error: "must be development, production or test" })
    .optional()
    .describe("Next.js mode"),

  // Limits
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

  /** Uploads per identity per hour; 0: off. */
  RATE_LIMIT_UPLOADS_PER_HOUR: wholeNumber(0, 999_999_999).default(200).describe("uploads per identity per hour"),
  /** Uploads per client address per hour, across identities; 0: off. */
  RATE_LIMIT_UPLOADS_PER_HOUR_PER_ADDRESS: wholeNumber(0, 999_999_999).default(600).describe("uploads per address per hour"),
  /** The owner's saved edits of documents per identity per minute; 0: off. */
  RATE_LIMIT_DOCUMENT_EDITS_PER_MINUTE: wholeNumber(0, 999_999_999).default(30).describe("document edits per identity per minute"),
  /** Reminders scheduled per identity per hour; 0: off. */
  RATE_LIMIT_REMINDERS_PER_HOUR: wholeNumber(0, 999_999_999).default(60).describe("reminders scheduled per identity per hour"),

  // Reminders
  /** The most reminders still to come in one thread. */
  REMINDERS_PER_THREAD: wholeNumber(1, 100_000).default(20).describe("pending reminders per thread"),
  /** The most reminders still to come for one identity, all threads together. */
  REMINDERS_PER_IDENTITY: wholeNumber(1, 1_000_000).default(100).describe("pending reminders per identity"),

  // Documents
  /** The most text one document keeps, all its versions together, in megabytes (UTF-8); a write past it is refused. */
  DOCUMENT_MAX_STORED_MB: wholeNumber(1, 1_000).default(4).describe("document size limit, all versions, MB"),
  /** The most documents one thread holds; past it an agent's create_document fails with the reason. */
  DOCUMENTS_PER_THREAD: wholeNumber(1, 10_000).default(50).describe("documents per thread"),

  // Files
  /** The most one attached file may be, in megabytes (a message carries at most 5). */
  ATTACHMENT_MAX_MB: wholeNumber(1, 1_000).default(10).describe("attachment size limit, MB"),
  /** The most all of one identity's files may take together, in megabytes; 0: no quota. */
  STORAGE_QUOTA_MB: wholeNumber(0, 100_000_000).default(1_000).describe("stored files per identity, MB"),

  /** Live streams (a running reply followed, the threads' news) one identity may hold open, across servers; 0: no cap. */
  MAX_LIVE_STREAMS_PER_IDENTITY: wholeNumber(0, 999_999).default(20).describe("live streams per identity"),

  // History and compaction
  /** The operator's history policy, over any URL's; unset: each agent's own. Read on the server only. */
  NEXT_PUBLIC_DEFAULT_HISTORY_POLICY: historyPolicyNameSchema.optional().describe("history policy"),
  /** N for lastN; unset: 10. Read on the server only. */
  NEXT_PUBLIC_DEFAULT_HISTORY_LENGTH: historyLengthSchema.optional().describe("history length"),
  /** Compact a thread when the model's history holds more messages than this; 0: never. */
  COMPACTION_MAX_MESSAGES: wholeNumber(0, 999_999).default(DEFAULT_COMPACTION.maxMessages).describe("messages before compaction"),
  /** Messages left after compaction, the summary counted; unset: 30, or one less than the maximum. */
  COMPACTION_TARGET_MESSAGES: wholeNumber(2, 999_999).optional().describe("messages after compaction"),
  /** The most recent user turns compaction always keeps. */
  COMPACTION_KEEP_TURNS: wholeNumber(1, 999_999).default(DEFAULT_COMPACTION.keepTurns).describe("user turns kept as they are"),

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
  /** The most times one message's reply goes on after the user's decisions (each a model call); the last round may ask no more. */
  MAX_TOOL_ROUNDS: wholeNumber(1, 100).default(10).describe("approval rounds per message"),
  /** How long the model may take to title a thread after its first reply; 0: threads keep their first words. */
  TITLE_TIMEOUT_SECONDS: wholeNumber(0, 600).default(5).describe("title timeout, seconds"),
  /** Which tool calls wait for the user's approval: as each tool declares (the ones that change something), every call, or none. */
  TOOL_APPROVAL: z.enum(TOOL_APPROVAL_MODES, { message: 'must be "default", "all" or "none"' }).default("default").describe("tool approval"),
  /** How long a tool call waits for the user's decision; past it, the call is denied as expired. */
  TOOL_APPROVAL_TIMEOUT_HOURS: wholeNumber(1, 8_760).default(24).describe("tool approval timeout, hours"),
  /** The MCP tool servers the agents may call: JSON, or the path of a JSON file, `{ "mcpServers": { … } }` (lib/mcp-config.ts). */
  MCP_SERVERS: text.max(100_000).optional().describe("MCP servers"),
  /** How long one MCP tool call may take before it ends as an error the model reads. */
  MCP_TOOL_TIMEOUT_SECONDS: wholeNumber(1, 3_600).default(30).describe("MCP tool timeout, seconds"),
  /** How long connecting to an MCP server, its SSE fallback and listing its tools may each take; the most a turn waits for a server not reached yet. */
  MCP_CONNECT_TIMEOUT_SECONDS: wholeNumber(1, 120).default(5).describe("MCP connect timeout, seconds"),
  /** The most characters of one MCP tool result the model is given; the rest is cut, with a note. */
  MCP_RESULT_MAX_CHARS: wholeNumber(100, 1_000_000).default(20_000).describe("MCP result cap, characters"),
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
  INNGEST_CHECKPOINTING: z
    .string()
    .regex(/^(0|1|true|false)$/i, "must be 1 or 0")
    .transform((value) => /^(1|true)$/i.test(value))
    .default(true)
    .describe("Inngest checkpointing"),
  /** How long one request to /api/inngest may run a function's steps before the rest go on in new requests; 0: no limit (an always-on server). */
  INNGEST_MAX_RUNTIME_SECONDS: wholeNumber(0, 999_999).default(0).describe("Inngest request runtime, seconds"),
});

const SECRET = /SECRET|_KEY$/;

export const ENV_NAMES = Object.keys(schema.shape) as (keyof typeof schema.shape)[];

export type Env = z.output<typeof schema> & {
  /** The compaction the settings ask for, the target's default worked out; undefined: compaction is off. */
  compaction: CompactionSettings | undefined;
  /** The MCP servers MCP_SERVERS names, read and checked (its file too) as the server starts. */
  mcpServers: McpServerConfig[];
};

const fail = (message: string): never => {
  throw new AppError("internal:config", message);
};

/**
 * The configuration in `raw` (blank counts as unset), or an error whose one
 * line names the first bad variable, what it must be and what it was.
 */
export function parseEnv(raw: RawEnv): Env {
  const input: Record<string, string | undefined> = {};
  for (const name of ENV_NAMES) input[name] = raw[name]?.trim() || undefined;
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue.path[0]);
    const value = input[name] ?? "";
    // A secret's value must not reach the log, even a wrong one.
    fail(`${name} ${issue.message}, not ${SECRET.test(name) ? `a ${value.length}-character value` : `"${value}"`}.`);
  }
  const settings = parsed.data!;
  if (settings.MODEL_PROVIDER === "openai-compatible" && !settings.OPENAI_COMPATIBLE_BASE_URL) {
    fail("MODEL_PROVIDER=openai-compatible needs OPENAI_COMPATIBLE_BASE_URL.");
  }
  const models = parseModelList(settings);
  if ("error" in models) return fail(models.error);
  const seeing = modelsWithImagesError(settings.MODELS_WITH_IMAGES, models.models);
  if (seeing) fail(seeing);
  const utility = parseUtilityModel(settings);
  if (utility && "error" in utility) fail(utility.error);
  const prices = parseModelPrices(settings.MODEL_PRICES);
  if ("error" in prices) fail(prices.error);
  const mcp = parseMcpServers(settings.MCP_SERVERS);
  if ("error" in mcp) return fail(mcp.error);
  return { ...settings, compaction: compactionFrom(settings), mcpServers: mcp.servers };
}

/** COMPACTION_TARGET_MESSAGES's default and its bound depend on COMPACTION_MAX_MESSAGES. */
function compactionFrom(settings: z.output<typeof schema>): Env["compaction"] {
  const maxMessages = settings.COMPACTION_MAX_MESSAGES;
  if (maxMessages === 0) return undefined;
  const targetMessages = settings.COMPACTION_TARGET_MESSAGES ?? Math.min(DEFAULT_COMPACTION.targetMessages, maxMessages - 1);
  if (targetMessages < 2 || targetMessages >= maxMessages) {
    fail(`COMPACTION_TARGET_MESSAGES must be at least 2 and less than COMPACTION_MAX_MESSAGES (${maxMessages}), not ${targetMessages}.`);
  }
  return { maxMessages, targetMessages, keepTurns: settings.COMPACTION_KEEP_TURNS };
}

/**
 * The app's configuration from process.env; throws the one-line error when a
 * value is bad. Read where the process builds its app (lib/app.ts's app())
 * and by the check at start (lib/start-check.ts); nothing else reads it.
 */
export function env(): Env {
  const raw: RawEnv = {};
  for (const name of ENV_NAMES) raw[name] = process.env[name];
  return parseEnv(raw);
}
