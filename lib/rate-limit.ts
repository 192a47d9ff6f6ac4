import "server-only";
import type pg from "pg";
import { RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import { AppError } from "@threadline/history/errors";

// Limits on what costs the operator: chat turns (model calls), forks (a copy
// of a thread's path), imports (up to 8 MB parsed and written) and uploads
// (a file stored), reminders (each one posted later) and share links per
// identity and per address, memory lessons per identity, and new identities per address (dropping the
// cookie must not reset an identity's count forever). Counted in Postgres with
// rate-limiter-flexible, so several app servers share one count; the defaults
// are far above what a person types and far below what a script sends.

interface Limit {
  /** Requests allowed per window; 0 turns the limit off. */
  points: number;
  windowSeconds: number;
}

/** Each limit's variable (its slice of the configuration holds its default: lib/env.ts's, or its wing's settings.ts) and window. */
const LIMITS = {
  chatPerIdentity: { variable: "RATE_LIMIT_CHAT_PER_MINUTE", windowSeconds: 60 },
  chatPerAddress: { variable: "RATE_LIMIT_CHAT_PER_MINUTE_PER_ADDRESS", windowSeconds: 60 },
  identitiesPerAddress: { variable: "RATE_LIMIT_NEW_IDENTITIES_PER_HOUR", windowSeconds: 3600 },
  forkPerIdentity: { variable: "RATE_LIMIT_FORKS_PER_MINUTE", windowSeconds: 60 },
  forkPerAddress: { variable: "RATE_LIMIT_FORKS_PER_MINUTE_PER_ADDRESS", windowSeconds: 60 },
  importPerIdentity: { variable: "RATE_LIMIT_IMPORTS_PER_HOUR", windowSeconds: 3600 },
  importPerAddress: { variable: "RATE_LIMIT_IMPORTS_PER_HOUR_PER_ADDRESS", windowSeconds: 3600 },
  uploadPerIdentity: { variable: "RATE_LIMIT_UPLOADS_PER_HOUR", windowSeconds: 3600 },
  uploadPerAddress: { variable: "RATE_LIMIT_UPLOADS_PER_HOUR_PER_ADDRESS", windowSeconds: 3600 },
  documentEditPerIdentity: { variable: "RATE_LIMIT_DOCUMENT_EDITS_PER_MINUTE", windowSeconds: 60 },
  reminderPerIdentity: { variable: "RATE_LIMIT_REMINDERS_PER_HOUR", windowSeconds: 3600 },
  sharePerIdentity: { variable: "RATE_LIMIT_SHARES_PER_HOUR", windowSeconds: 3600 },
  memoryLessonPerIdentity: { variable: "RATE_LIMIT_MEMORY_LESSONS_PER_HOUR", windowSeconds: 3600 },
  shareViewsPerAddress: { variable: "RATE_LIMIT_SHARE_VIEWS_PER_MINUTE_PER_ADDRESS", windowSeconds: 60 },
  authPerAddress: { variable: "RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS", windowSeconds: 60 },
  /** Mails (reset and sign-in links) sent to one email, whoever asks: nobody can make the server mail-bomb a person. */
  mailsPerEmail: { variable: "RATE_LIMIT_MAILS_PER_HOUR_PER_EMAIL", windowSeconds: 3600 },
  /** Failed sign-ins of one email: past the count, it is locked until the window ends. */
  signInFailures: { variable: "AUTH_LOCKOUT_FAILURES", windowSeconds: 900 },
} as const;

type LimitName = keyof typeof LIMITS;

/** The limits' variables, parsed: the app's configuration holds them all. */
export type LimitSettings = { readonly [Name in LimitName as (typeof LIMITS)[Name]["variable"]]: number };

/** A limit as configured. */
export function configuredLimit(name: LimitName, settings: LimitSettings): Limit {
  const { variable, windowSeconds } = LIMITS[name];
  return { points: settings[variable], windowSeconds };
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

const isVerdict = (outcome: unknown): outcome is RateLimiterRes =>
  outcome instanceof RateLimiterRes || (typeof outcome === "object" && outcome !== null && typeof (outcome as RateLimiterRes).msBeforeNext === "number");

function describeWait(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

/** The process's limiters, by limit: null for a limit that is off. */
export type Limiters = Map<LimitName, RateLimiterPostgres | null>;

/**
 * The limits, each counted in the pool's database. A limit's limiter is built
 * on its first count, from the app's configuration, into `limiters`
 * (which the app keeps one of per process, lib/app.ts); one with 0 points is
 * off and never touches the database. This wrapper is not shared between
 * Next's bundles (the proxy is one of its own): the AppError it throws must be
 * the caller's own class, or the caller would not recognise it as a 429.
 */
export class RateLimits {
  constructor(
    private readonly pool: () => pg.Pool,
    private readonly settings: LimitSettings,
    private readonly limiters: Limiters = new Map(),
  ) {}

  /** Counts one chat turn; throws a 429 AppError once the identity or its address is over its limit. */
  limitChatTurn(owner: string, address: string | undefined): Promise<void> {
    return this.consumeBoth(
      ["chatPerIdentity", owner, "You are sending messages faster than this server allows."],
      ["chatPerAddress", address, "Too many messages are coming from your network."],
    );
  }

  /** Counts one fork; throws a 429 AppError once the identity or its address is over its limit. */
  limitFork(owner: string, address: string | undefined): Promise<void> {
    return this.consumeBoth(
      ["forkPerIdentity", owner, "You are forking threads faster than this server allows."],
      ["forkPerAddress", address, "Too many forks are coming from your network."],
    );
  }

  /** Counts one import; throws a 429 AppError once the identity or its address is over its limit. */
  limitImport(owner: string, address: string | undefined): Promise<void> {
    return this.consumeBoth(
      ["importPerIdentity", owner, "You are importing threads faster than this server allows."],
      ["importPerAddress", address, "Too many imports are coming from your network."],
    );
  }

  /** Counts one file upload; throws a 429 AppError once the identity or its address is over its limit. */
  limitUpload(owner: string, address: string | undefined): Promise<void> {
    return this.consumeBoth(
      ["uploadPerIdentity", owner, "You are uploading files faster than this server allows."],
      ["uploadPerAddress", address, "Too many uploads are coming from your network."],
    );
  }

  /** Counts one share link made; throws a 429 AppError once the identity is over its limit (a link names one of the owner's threads, so only they make one). */
  limitShare(owner: string): Promise<void> {
    return this.consume("sharePerIdentity", owner, "You are making share links faster than this server allows.");
  }

  /** Counts one shared page, Markdown or file opened from an address; throws a 429 AppError over the limit (nobody is signed in to count by). */
  async limitShareView(address: string | undefined): Promise<void> {
    if (address) await this.consume("shareViewsPerAddress", address, "Too many shared pages are being opened from your network.");
  }

  /** Counts one memory lesson (a model call after a reply); throws a 429 AppError once the identity is over its limit. */
  limitMemoryLesson(owner: string): Promise<void> {
    return this.consume("memoryLessonPerIdentity", owner, "Memories are being learned faster than this server allows.");
  }

  /** Counts one reminder scheduled; throws a 429 AppError once the identity is over its limit (approved calls come from no request, so no address). */
  limitReminder(owner: string): Promise<void> {
    return this.consume("reminderPerIdentity", owner, "You are scheduling reminders faster than this server allows.");
  }

  /**
   * Counts one owner's edit of a document (a version of up to 200,000
   * characters stored); throws a 429 AppError once the identity is over its
   * limit. Only an owner edits their documents, and a new identity has none,
   * so the address is not counted.
   */
  limitDocumentEdit(owner: string): Promise<void> {
    return this.consume("documentEditPerIdentity", owner, "You are saving document edits faster than this server allows.");
  }

  /** Counts one sign-in, sign-up or reset request from an address; throws a 429 AppError over the limit. */
  async limitAuth(address: string | undefined): Promise<void> {
    if (address) await this.consume("authPerAddress", address, "Too many sign-in attempts are coming from your network.");
  }

  /**
   * Throws a 429 AppError while `email` is locked: too many failed sign-ins in
   * the window. Known and unknown emails are counted and answered alike.
   */
  async refuseLockedOut(email: string): Promise<void> {
    const limiter = this.limiter("signInFailures");
    const counted = await limiter?.get(email.toLowerCase());
    if (!limiter || !counted || counted.consumedPoints < limiter.points) return;
    const retryAfterSeconds = Math.max(1, Math.ceil(counted.msBeforeNext / 1000));
    throw new AppError("rate_limited:locked", `Too many failed sign-ins for this account. Try again in ${describeWait(retryAfterSeconds)}, or reset the password.`, {
      retryAfterSeconds,
    });
  }

  /** Counts a failed sign-in of `email` towards its lockout. */
  async signInFailed(email: string): Promise<void> {
    await this.limiter("signInFailures")?.penalty(email.toLowerCase());
  }

  /** A sign-in that succeeded clears the email's failures. */
  async signInSucceeded(email: string): Promise<void> {
    await this.limiter("signInFailures")?.delete(email.toLowerCase());
  }

  /**
   * Counts one mail to `email`: false once the email has had its share this
   * hour. Never a refusal: the request that asked for the mail is answered
   * alike either way, so its answer tells nothing about the account.
   */
  async mayMail(email: string): Promise<boolean> {
    try {
      await this.limiter("mailsPerEmail")?.consume(email.toLowerCase());
      return true;
    } catch (outcome) {
      if (!isVerdict(outcome)) throw outcome; // the store failed: not a verdict
      return false;
    }
  }

  /** Counts one new identity for an address; throws a 429 AppError over the limit. */
  async limitNewIdentity(address: string | undefined): Promise<void> {
    if (address) await this.consume("identitiesPerAddress", address, "Too many new visitors are coming from your network.");
  }

  private async consumeBoth(identity: [LimitName, string, string], address: [LimitName, string | undefined, string]): Promise<void> {
    const [addressLimit, key, message] = address;
    // Side by side: the request waits for one round trip, not two.
    await Promise.all([this.consume(...identity), key ? this.consume(addressLimit, key, message) : undefined]);
  }

  private async consume(name: LimitName, key: string, message: string): Promise<void> {
    try {
      await this.limiter(name)?.consume(key);
    } catch (outcome) {
      // A limiter another bundle built rejects with its own copy of the class, so the verdict is known by its shape.
      if (!isVerdict(outcome)) throw outcome; // the store failed: not a verdict
      const retryAfterSeconds = Math.max(1, Math.ceil(outcome.msBeforeNext / 1000));
      throw new AppError(`rate_limited:${name}`, `${message} Try again in ${describeWait(retryAfterSeconds)}.`, { retryAfterSeconds });
    }
  }

  private limiter(name: LimitName): RateLimiterPostgres | null {
    let limiter = this.limiters.get(name);
    if (limiter === undefined) {
      const { points, windowSeconds } = configuredLimit(name, this.settings);
      limiter =
        points === 0
          ? null
          : new RateLimiterPostgres({
              storeClient: unnamedStatements(this.pool()),
              storeType: "pool",
              tableName: "rate_limits", // created by a migration
              tableCreated: true,
              clearExpiredByTimeout: true,
              keyPrefix: name,
              points,
              duration: windowSeconds,
            });
      this.limiters.set(name, limiter);
    }
    return limiter;
  }
}
