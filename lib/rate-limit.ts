import "server-only";
import type pg from "pg";
import { RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import { getPool } from "@/lib/db/pool";
import { env, parseEnv, type RawEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";

// Limits on what costs the operator: chat turns (model calls) per identity and
// per address, and new identities per address (dropping the cookie must not
// reset an identity's count forever). Counted in Postgres with
// rate-limiter-flexible, so several app servers share one count; the defaults
// are far above what a person types and far below what a script sends.

interface Limit {
  /** Requests allowed per window; 0 turns the limit off. */
  points: number;
  windowSeconds: number;
}

/** Each limit's variable (lib/env.ts holds its default) and window. */
const LIMITS = {
  chatPerIdentity: { variable: "RATE_LIMIT_CHAT_PER_MINUTE", windowSeconds: 60 },
  chatPerAddress: { variable: "RATE_LIMIT_CHAT_PER_MINUTE_PER_ADDRESS", windowSeconds: 60 },
  identitiesPerAddress: { variable: "RATE_LIMIT_NEW_IDENTITIES_PER_HOUR", windowSeconds: 3600 },
} as const;

type LimitName = keyof typeof LIMITS;

/** A limit as configured, from the environment or from `source` (a test's variables). */
export function configuredLimit(name: LimitName, source?: RawEnv): Limit {
  const { variable, windowSeconds } = LIMITS[name];
  return { points: (source ? parseEnv(source) : env())[variable], windowSeconds };
}

const globalForLimits = globalThis as unknown as { threadlineLimiters?: Map<LimitName, RateLimiterPostgres | null> };

function limiter(name: LimitName): RateLimiterPostgres | null {
  const limiters = (globalForLimits.threadlineLimiters ??= new Map());
  if (!limiters.has(name)) {
    const { points, windowSeconds } = configuredLimit(name);
    limiters.set(
      name,
      points === 0
        ? null
        : new RateLimiterPostgres({
            storeClient: unnamedStatements(getPool()),
            storeType: "pool",
            tableName: "rate_limits", // created by a migration
            tableCreated: true,
            clearExpiredByTimeout: true,
            keyPrefix: name,
            points,
            duration: windowSeconds,
          }),
    );
  }
  return limiters.get(name)!;
}

/**
 * The pool, minus the statement names rate-limiter-flexible gives its queries.
 * A named statement lives as long as the server session, and the embedded
 * Postgres is one session for every connection: after a reconnect (the pool
 * drops idle clients) preparing the same name again fails with 42P05.
 */
function unnamedStatements(pool: pg.Pool): Pick<pg.Pool, "query"> {
  return {
    query: ((config: string | pg.QueryConfig, values?: unknown[]) =>
      typeof config === "string" ? pool.query(config, values) : pool.query({ text: config.text, values: config.values })) as pg.Pool["query"],
  };
}

async function consume(name: LimitName, key: string, message: string): Promise<void> {
  try {
    await limiter(name)?.consume(key);
  } catch (outcome) {
    if (!(outcome instanceof RateLimiterRes)) throw outcome; // the store failed: not a verdict
    const retryAfterSeconds = Math.max(1, Math.ceil(outcome.msBeforeNext / 1000));
    throw new AppError(`rate_limited:${name}`, `${message} Try again in ${describeWait(retryAfterSeconds)}.`, { retryAfterSeconds });
  }
}

function describeWait(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

/** Counts one chat turn; throws a 429 AppError once the identity or its address is over its limit. */
export async function limitChatTurn(owner: string, address: string | undefined): Promise<void> {
  // Side by side: the turn waits for one round trip, not two.
  await Promise.all([
    consume("chatPerIdentity", owner, "You are sending messages faster than this server allows."),
    address ? consume("chatPerAddress", address, "Too many messages are coming from your network.") : undefined,
  ]);
}

/** Counts one new identity for an address; throws a 429 AppError over the limit. */
export async function limitNewIdentity(address: string | undefined): Promise<void> {
  if (address) await consume("identitiesPerAddress", address, "Too many new visitors are coming from your network.");
}
