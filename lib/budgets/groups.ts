import "server-only";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { AppError } from "@threadline/history/errors";
import { inTransaction } from "@/lib/db/transaction";
import type { Budget, BudgetGroup } from "@/lib/protocol/budgets";

// Groups of people an admin sets one budget for (the smallest of a person's
// groups' budgets binds them, threadline_budget_status). A member is put there
// by an admin, or by the identity provider's groups claim at each sign-in
// (from_claim): the claim's memberships follow the claim, an admin's stay.

/** Groups an install may have: far more than a team sets budgets for, few enough to list on one page. */
export const MAX_GROUPS = 200;
/** Members one group may have. */
export const MAX_GROUP_MEMBERS = 10_000;

/** What the groups ask of the accounts wing: who a person is (only it reads the people's rows). */
export interface GroupPeople {
  get(id: string): Promise<{ id: string; name: string; email: string } | null>;
  named(ids: readonly string[]): Promise<Map<string, { name: string; email: string }>>;
}

export interface GroupsOptions {
  pool: () => pg.Pool;
  people: () => GroupPeople;
}

type Member = BudgetGroup["members"][number];

interface GroupRow {
  id: string;
  name: string;
  amount: string | null;
  unit: Budget["unit"] | null;
  period: Budget["period"] | null;
}

const GROUP_COLUMNS = `g.id, g.name, b.amount, b.unit, b.period
   FROM budget_groups g LEFT JOIN budgets b ON b.scope = 'group:' || g.id`;

const noSuchGroup = () => new AppError("not_found:group", "There is no such group.");

/** A duplicate name, as Postgres says it (the unique index on budget_groups.name). */
const isDuplicateName = (error: unknown) => (error as { code?: string; constraint?: string }).code === "23505";

const duplicateName = (name: string) => new AppError("conflict:group_name", `There is a group named "${name}" already.`);

export class Groups {
  constructor(private readonly options: GroupsOptions) {}

  /** Every group, by name, with its members and its budget. */
  list(): Promise<BudgetGroup[]> {
    return this.read(null);
  }

  /** One group as the list has it; a 404 when there is none. */
  async get(id: string): Promise<BudgetGroup> {
    const [group] = await this.read(id);
    if (!group) throw noSuchGroup();
    return group;
  }

  /** The groups (all, or the one `id`), their members named by the accounts wing. */
  private async read(id: string | null): Promise<BudgetGroup[]> {
    const pool = this.options.pool();
    const { rows } = await pool.query<GroupRow>(`SELECT ${GROUP_COLUMNS} WHERE $1::uuid IS NULL OR g.id = $1::uuid ORDER BY g.name LIMIT ${MAX_GROUPS}`, [id]);
    const members = await pool.query<{ group_id: string; person: string; from_claim: boolean }>(
      "SELECT group_id, person, from_claim FROM budget_group_members WHERE group_id = ANY($1::uuid[]) ORDER BY created_at, person",
      [rows.map((row) => row.id)],
    );
    const named = await this.options.people().named([...new Set(members.rows.map((m) => m.person))]);
    const byGroup = new Map<string, Member[]>();
    for (const m of members.rows) {
      const person = named.get(m.person);
      const list = byGroup.get(m.group_id) ?? [];
      list.push({ id: m.person, name: person?.name ?? "", email: person?.email ?? "", fromClaim: m.from_claim });
      byGroup.set(m.group_id, list);
    }
    return rows.map((row) => groupOf(row, byGroup.get(row.id) ?? []));
  }

  /** A new group, with no members and no budget: a 409 when the name is taken, a 409 past MAX_GROUPS. */
  async create(name: string): Promise<BudgetGroup> {
    try {
      return await inTransaction(this.options.pool(), async (tx) => {
        // Serializes creations, so two at once cannot both be the one that fits.
        await tx.query("SELECT pg_advisory_xact_lock(hashtext('threadline_budget_groups'))");
        const { rows } = await tx.query<{ n: number }>("SELECT count(*)::int AS n FROM budget_groups");
        if (rows[0].n >= MAX_GROUPS) {
          throw new AppError("conflict:groups_full", `There are ${MAX_GROUPS} groups already, the most there may be. Delete one first.`);
        }
        const id = randomUUID();
        await tx.query("INSERT INTO budget_groups (id, name) VALUES ($1, $2)", [id, name]);
        return { id, name, members: [], budget: null };
      });
    } catch (error) {
      if (isDuplicateName(error)) throw duplicateName(name);
      throw error;
    }
  }

  /** Gives the group another name (409 when another group has it). */
  async rename(id: string, name: string): Promise<BudgetGroup> {
    try {
      const { rowCount } = await this.options.pool().query("UPDATE budget_groups SET name = $2 WHERE id = $1", [id, name]);
      if (!rowCount) throw noSuchGroup();
    } catch (error) {
      if (isDuplicateName(error)) throw duplicateName(name);
      throw error;
    }
    return this.get(id);
  }

  /** Deletes the group, its memberships and its budget, together. */
  async delete(id: string): Promise<void> {
    await inTransaction(this.options.pool(), async (tx) => {
      const { rowCount } = await tx.query("DELETE FROM budget_groups WHERE id = $1", [id]);
      if (!rowCount) throw noSuchGroup();
      await tx.query("DELETE FROM budgets WHERE scope = $1", [`group:${id}`]);
    });
  }

  /**
   * Puts a person in the group by hand (a membership the groups claim made
   * becomes the admin's, kept whatever the next sign-in says): a 404 for
   * no such group or person, a 409 past MAX_GROUP_MEMBERS.
   */
  async addMember(id: string, personId: string): Promise<Member> {
    const person = await this.options.people().get(personId);
    if (!person) throw new AppError("not_found:person", "There is no such person.");
    await inTransaction(this.options.pool(), async (tx) => {
      // The group's row, locked: members are counted and added one change at a time, and the group cannot go meanwhile.
      const group = await tx.query("SELECT 1 FROM budget_groups WHERE id = $1 FOR UPDATE", [id]);
      if (group.rows.length === 0) throw noSuchGroup();
      const { rowCount } = await tx.query("UPDATE budget_group_members SET from_claim = false WHERE group_id = $1 AND person = $2", [id, personId]);
      if (rowCount) return;
      const { rows } = await tx.query<{ n: number }>("SELECT count(*)::int AS n FROM budget_group_members WHERE group_id = $1", [id]);
      if (rows[0].n >= MAX_GROUP_MEMBERS) {
        throw new AppError("conflict:group_full", `This group has ${MAX_GROUP_MEMBERS.toLocaleString("en-US")} members already, the most a group may have.`);
      }
      await tx.query("INSERT INTO budget_group_members (group_id, person) VALUES ($1, $2)", [id, personId]);
    });
    return { id: person.id, name: person.name, email: person.email, fromClaim: false };
  }

  /** Takes a person out of the group (nothing to do when they are not in it); a 404 for no such group. */
  async removeMember(id: string, personId: string): Promise<void> {
    const { rows } = await this.options.pool().query<{ found: boolean }>(
      `WITH gone AS (DELETE FROM budget_group_members WHERE group_id = $1 AND person = $2)
       SELECT EXISTS (SELECT 1 FROM budget_groups WHERE id = $1) AS found`,
      [id, personId],
    );
    if (!rows[0].found) throw noSuchGroup();
  }

  /**
   * Makes `person`'s memberships from the groups claim exactly the groups
   * named in `names` (as written; a name no group has is ignored): claimed
   * ones no longer named go, newly named ones come (not past a full group),
   * and the ones an admin made stay.
   */
  async setClaimed(person: string, names: readonly string[]): Promise<void> {
    await inTransaction(this.options.pool(), async (tx) => {
      await tx.query(
        `DELETE FROM budget_group_members m
          WHERE m.person = $1 AND m.from_claim
            AND NOT EXISTS (SELECT 1 FROM budget_groups g WHERE g.id = m.group_id AND g.name = ANY($2::text[]))`,
        [person, names],
      );
      await tx.query(
        `INSERT INTO budget_group_members (group_id, person, from_claim)
         SELECT g.id, $1, true FROM budget_groups g
          WHERE g.name = ANY($2::text[])
            AND (SELECT count(*) FROM budget_group_members m WHERE m.group_id = g.id) < $3
         ON CONFLICT (group_id, person) DO NOTHING`,
        [person, names, MAX_GROUP_MEMBERS],
      );
    });
  }
}

function groupOf(row: GroupRow, members: Member[]): BudgetGroup {
  const budget = row.amount === null || row.unit === null || row.period === null ? null : { amount: Number(row.amount), unit: row.unit, period: row.period };
  return { id: row.id, name: row.name, members, budget };
}
