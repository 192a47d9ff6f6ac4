// A person's own budget (GET /api/me/budget), shared by everything on the
// page that shows it (the account menu, the thread's usage, the warning by
// the composer), read again when a turn ends; and the admin's budget and
// group calls. Every failure is an Error whose message can be shown as is.
import { call } from "@/lib/client/accounts";
import type { Budget, BudgetGroup, BudgetList, BudgetStatus, GroupList, MeBudget } from "@/lib/protocol/budgets";

export async function fetchMyBudget(): Promise<BudgetStatus | null> {
  return (await call<MeBudget>("/api/me/budget")).budget;
}

/** What the page knows of the person's budget: not read yet (undefined), none binds them (null), or its status. */
export type MyBudget = BudgetStatus | null | undefined;

/** The person's budget as last read, for every part of the page, read again on refresh(). */
class MyBudgetStore {
  private value: MyBudget = undefined;
  private readonly listeners = new Set<() => void>();
  private reading: Promise<void> | null = null;
  private again = false;

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  get = (): MyBudget => this.value;

  /** Reads it again (once more after a read under way: a turn may have ended meanwhile); a read that fails keeps what was shown. */
  refresh = (): Promise<void> => {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = fetchMyBudget()
      .then(
        (budget) => this.set(budget),
        () => undefined,
      )
      .finally(() => {
        this.reading = null;
        if (this.again) {
          this.again = false;
          void this.refresh();
        }
      });
    return this.reading;
  };

  private set(value: MyBudget) {
    this.value = value;
    for (const listener of this.listeners) listener();
  }
}

export const myBudget = new MyBudgetStore();

const json = (method: string, body?: unknown): RequestInit => ({ method, body: body === undefined ? undefined : JSON.stringify(body) });
const groupPath = (id: string) => `/api/admin/groups/${encodeURIComponent(id)}`;

export const listBudgets = () => call<BudgetList>("/api/admin/budgets");

/** Sets the budget of `scope` (default, guests, group:<id>, person:<id>), or clears it (null). */
export async function setBudget(scope: string, budget: Budget | null): Promise<void> {
  // A scope is made of a word, a colon and an id (a UUID): nothing in it needs escaping.
  await call(`/api/admin/budgets/${scope}`, json("PUT", budget));
}

export async function listGroups(): Promise<BudgetGroup[]> {
  return (await call<GroupList>("/api/admin/groups")).groups;
}

export async function createGroup(name: string): Promise<BudgetGroup> {
  return (await call<{ group: BudgetGroup }>("/api/admin/groups", json("POST", { name }))).group;
}

export async function renameGroup(id: string, name: string): Promise<BudgetGroup> {
  return (await call<{ group: BudgetGroup }>(groupPath(id), json("PATCH", { name }))).group;
}

export async function deleteGroup(id: string): Promise<void> {
  await call(groupPath(id), json("DELETE"));
}

export async function addGroupMember(id: string, personId: string): Promise<void> {
  await call(`${groupPath(id)}/members/${encodeURIComponent(personId)}`, json("PUT"));
}

export async function removeGroupMember(id: string, personId: string): Promise<void> {
  await call(`${groupPath(id)}/members/${encodeURIComponent(personId)}`, json("DELETE"));
}
