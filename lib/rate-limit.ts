import "server-only";
import type pg from "pg";
import { RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import { getPool } from "@/lib/db/pool";
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
  variable: string;
}

const LIMITS = {
  chatPerIdentity: { variable: "RATE_LIMIT_CHAT_PER_MINUTE", points: 20, windowSeconds: 60 },
  chatPerAddress: { variable: "RATE_LIMIT_CHAT_PER_MINUTE_PER_ADDRESS", points: 120, windowSeconds: 60 },
  identitiesPerAddress: { variable: "RATE_LIMIT_NEW_IDENTITIES_PER_HOUR", points: 60, windowSeconds: 3600 },
} satisfies Record<string, Limit>;

type LimitName = keyof typeof LIMITS;

/** A limit as configured: its variable when set (a whole number ≥ 0), its default otherwise. */
export function configuredLimit(name: LimitName, env: Record<string, string | undefined> = process.env): Limit {
  const limit = LIMITS[name];
  const raw = env[limit.variable]?.trim();
  if (!raw) return limit;
  if (!/^\d+$/.test(raw)) throw new Error(`${limit.variable} must be a whole number ≥ 0 (0 turns the limit off), not "${raw}".`);
  return { ...limit, points: Number(raw) };
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
