import "server-only";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type pg from "pg";
import { inTransaction } from "@/lib/db/transaction";
import { AppError } from "@threadline/history/errors";
import type { Person, PersonRole, PersonStatus } from "@/lib/protocol/accounts";

// The people of an install and what admins do with them, in SQL over the
// auth_* tables: the first admin, invites, approval, disabling (which ends
// every session of theirs at once: sessions are read from the database on
// every request, never from a cookie cache), and the proxy mode's people.

const INVITE_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
/** Invites one admin may have waiting at once: a leaked admin session cannot mint unbounded links. */
export const MAX_OPEN_INVITES = 100;

const digest = (code: string) => createHash("sha256").update(code).digest("base64url");

interface PersonRow {
  id: string;
  name: string;
  email: string;
  role: PersonRole;
  status: PersonStatus;
  created_at: Date;
}

const person = (row: PersonRow): Person => ({
  id: row.id,
  name: row.name,
  email: row.email,
  role: row.role,
  status: row.status,
  createdAt: row.created_at.toISOString(),
});

export class People {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * True for the one sign-up that makes the install's first account: the
   * first to insert auth_first_admin's one row while no account exists, on
   * whichever server.
   */
  async claimFirstAdmin(email: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO auth_first_admin (email) SELECT $1 WHERE NOT EXISTS (SELECT 1 FROM auth_users)
       ON CONFLICT (only_row) DO NOTHING`,
      [email],
    );
    return (rowCount ?? 0) > 0;
  }

  /** Whether anyone has an account yet (the sign-in page offers "Create the first account" until then). */
  async anyone(): Promise<boolean> {
    const { rows } = await this.pool.query("SELECT 1 FROM auth_users LIMIT 1");
    return rows.length > 0;
  }

  async get(id: string, db: Pick<pg.Pool, "query"> = this.pool): Promise<Person | null> {
    const { rows } = await db.query<PersonRow>("SELECT id, name, email, role, status, created_at FROM auth_users WHERE id = $1", [id]);
    return rows[0] ? person(rows[0]) : null;
  }

  /** The name and email of each of `ids` that has an account (another wing's rows name people by id only; a guest's id is left out). */
  async named(ids: readonly string[]): Promise<Map<string, { name: string; email: string }>> {
    if (ids.length === 0) return new Map();
    const { rows } = await this.pool.query<{ id: string; name: string; email: string }>("SELECT id, name, email FROM auth_users WHERE id = ANY($1::text[])", [ids]);
    return new Map(rows.map((row) => [row.id, { name: row.name, email: row.email }]));
  }

  /** The account with `email` (any case), or null. */
  async byEmail(email: string): Promise<{ email: string; status: PersonStatus } | null> {
    const { rows } = await this.pool.query<{ email: string; status: PersonStatus }>("SELECT email, status FROM auth_users WHERE email = $1", [email.trim().toLowerCase()]);
    return rows[0] ?? null;
  }

  /**
   * Ends every password reset link of the person's that is waiting: Better
   * Auth keeps each as an auth_verifications row named reset-password:<token>
   * whose value is their id (identifiers are stored as they are: no
   * verification.storeIdentifier is set in better-auth.ts).
   */
  async endResetLinks(id: string): Promise<void> {
    await this.pool.query("DELETE FROM auth_verifications WHERE identifier LIKE 'reset-password:%' AND value = $1", [id]);
  }

  /** Everyone, pending first, then by when they joined. */
  async list(): Promise<Person[]> {
    const { rows } = await this.pool.query<PersonRow>(
      `SELECT id, name, email, role, status, created_at FROM auth_users
        ORDER BY (status = 'pending') DESC, created_at, id LIMIT 1000`,
    );
    return rows.map(person);
  }

  /** A new invite link's code (shown once: only its digest is kept). */
  async invite(adminId: string, now = new Date()): Promise<{ code: string; expiresAt: string }> {
    const code = randomBytes(32).toString("base64url");
    const expiresAt = new Date(now.getTime() + INVITE_LIFETIME_MS);
    const { rowCount } = await this.pool.query(
      `INSERT INTO auth_invites (code_hash, created_by, created_at, expires_at)
       SELECT $1, $2, $3, $4
        WHERE (SELECT count(*) FROM auth_invites WHERE created_by = $2 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $3) < $5`,
      [digest(code), adminId, now, expiresAt, MAX_OPEN_INVITES],
    );
    if (!rowCount) {
      throw new AppError("rate_limited:invites", `You have ${MAX_OPEN_INVITES} invites waiting to be used. Wait for some to be used or expire.`, {
        retryAfterSeconds: 3600,
      });
    }
    return { code, expiresAt: expiresAt.toISOString() };
  }

  /** Whether an invite's code still opens sign-up. */
  async inviteOpen(code: string, now = new Date()): Promise<boolean> {
    const { rows } = await this.pool.query(
      "SELECT 1 FROM auth_invites WHERE code_hash = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $2",
      [digest(code), now],
    );
    return rows.length > 0;
  }

  /** Uses an invite up, in the statement that checks it: true when it was open (two sign-ups with one link make one account). */
  async useInvite(code: string, now = new Date()): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      "UPDATE auth_invites SET used_at = $2 WHERE code_hash = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $2",
      [digest(code), now],
    );
    return (rowCount ?? 0) > 0;
  }

  /** Records who an invite made (after their row exists). */
  async inviteUsedBy(code: string, userId: string): Promise<void> {
    await this.pool.query("UPDATE auth_invites SET used_by = $2 WHERE code_hash = $1", [digest(code), userId]);
  }

  /** Whether the person may hold a session: active and not waiting for approval. */
  async status(userId: string): Promise<PersonStatus | null> {
    const { rows } = await this.pool.query<{ status: PersonStatus }>("SELECT status FROM auth_users WHERE id = $1", [userId]);
    return rows[0]?.status ?? null;
  }

  async passkeyCount(userId: string): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM auth_passkeys WHERE user_id = $1", [userId]);
    return rows[0].n;
  }

  async endSessions(userId: string): Promise<void> {
    await this.pool.query("DELETE FROM auth_sessions WHERE user_id = $1", [userId]);
  }

  async approve(id: string): Promise<Person> {
    return this.change(id, "UPDATE auth_users SET status = 'active', updated_at = now() WHERE id = $1 AND status = 'pending'", "is not waiting for approval");
  }

  /** Turns a person away: their sessions end in the same transaction, so their next request is refused. */
  async disable(adminId: string, id: string): Promise<Person> {
    if (adminId === id) throw new AppError("bad_request:person", "You cannot disable your own account.");
    return this.transaction(async (tx) => {
      const { rowCount } = await tx.query("UPDATE auth_users SET status = 'disabled', updated_at = now() WHERE id = $1 AND status <> 'disabled'", [id]);
      if (!rowCount) await this.missing(tx, id, "is disabled already");
      await tx.query("DELETE FROM auth_sessions WHERE user_id = $1", [id]);
      return (await this.get(id, tx))!;
    });
  }

  async enable(id: string): Promise<Person> {
    return this.change(id, "UPDATE auth_users SET status = 'active', updated_at = now() WHERE id = $1 AND status = 'disabled'", "is not disabled");
  }

  /** Makes or unmakes an admin; the last admin stays one (the install would have nobody to let people in). */
  async setRole(id: string, role: PersonRole): Promise<Person> {
    return this.transaction(async (tx) => {
      // Serializes role changes, so two admins unmaking each other at once cannot leave none.
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('threadline_admin_roles'))");
      if (role === "member") {
        const { rows } = await tx.query<{ admins: number }>("SELECT count(*)::int AS admins FROM auth_users WHERE role = 'admin' AND status = 'active' AND id <> $1", [id]);
        if (rows[0].admins === 0) throw new AppError("bad_request:person", "This is the last admin: make someone else an admin first.");
      }
      const { rowCount } = await tx.query("UPDATE auth_users SET role = $2, updated_at = now() WHERE id = $1 AND role <> $2", [id, role]);
      if (!rowCount) await this.missing(tx, id, role === "admin" ? "is an admin already" : "is not an admin");
      return (await this.get(id, tx))!;
    });
  }

  /**
   * The person an identity-aware proxy names by email: found, or made on
   * their first request (the first one of the install as its admin).
   */
  async fromProxy(email: string): Promise<Person> {
    const normalized = email.trim().toLowerCase();
    const existing = await this.pool.query<PersonRow>("SELECT id, name, email, role, status, created_at FROM auth_users WHERE email = $1", [normalized]);
    if (existing.rows[0]) return person(existing.rows[0]);
    const first = await this.claimFirstAdmin(normalized);
    const { rows } = await this.pool.query<PersonRow>(
      `INSERT INTO auth_users (id, name, email, email_verified, role, status) VALUES ($1, $2, $2, true, $3, 'active')
       ON CONFLICT (email) DO UPDATE SET updated_at = auth_users.updated_at
       RETURNING id, name, email, role, status, created_at`,
      [randomUUID(), normalized, first ? "admin" : "member"],
    );
    return person(rows[0]);
  }

  private async change(id: string, sql: string, notApplicable: string): Promise<Person> {
    const { rowCount } = await this.pool.query(sql, [id]);
    if (!rowCount) await this.missing(this.pool, id, notApplicable);
    return (await this.get(id))!;
  }

  /** Throws: not found when there is no such person, else a conflict that says why the change does not apply. */
  private async missing(db: Pick<pg.Pool, "query">, id: string, notApplicable: string): Promise<never> {
    const { rows } = await db.query<{ email: string }>("SELECT email FROM auth_users WHERE id = $1", [id]);
    if (!rows[0]) throw new AppError("not_found:person", "There is no such person.");
    throw new AppError("conflict:person", `${rows[0].email} ${notApplicable}.`);
  }

  private transaction<T>(work: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, work);
  }
}
