"use client";

import { useId, useState, type FormEvent } from "react";
import { budgetText } from "@/lib/budgets/budget-text";
import { addGroupMember, createGroup, deleteGroup, listBudgets, listGroups, removeGroupMember, renameGroup, setBudget } from "@/lib/client/budgets";
import type { Budget, BudgetGroup, BudgetList } from "@/lib/protocol/budgets";
import { actionClass, BudgetForm, fieldClass } from "@/components/budgets/BudgetForm";

export interface PersonChoice {
  id: string;
  name: string;
  email: string;
}

interface Data {
  budgets: BudgetList;
  groups: BudgetGroup[];
}

const personLabel = (p: { name: string; email: string }) => (p.name && p.name !== p.email ? `${p.name} (${p.email})` : p.email);

/**
 * Budgets: what everyone and guests may spend (over the operator's
 * variables), the groups with their members and budgets, and each person's
 * own. Every change is sent at once and the page reads the whole again.
 */
export function BudgetsPanel({ initial, people }: { initial: Data; people: PersonChoice[] }) {
  const [data, setData] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Bumped after each change: the forms start again from what the server says.
  const [version, setVersion] = useState(0);

  async function run(work: () => Promise<unknown>) {
    setBusy(true);
    setError(null);
    try {
      await work();
      const [budgets, groups] = await Promise.all([listBudgets(), listGroups()]);
      setData({ budgets, groups });
      setVersion((v) => v + 1);
    } catch (reason) {
      setError((reason as Error).message);
    } finally {
      setBusy(false);
    }
  }

  const set = (scope: string, budget: Budget | null) => run(() => setBudget(scope, budget));
  const budgetOf = (scope: string): Budget | null => {
    const found = data.budgets.budgets.find((b) => b.scope === scope);
    return found ? { amount: found.amount, unit: found.unit, period: found.period } : null;
  };
  const { variables } = data.budgets;
  const personal = data.budgets.budgets.filter((b) => b.scope.startsWith("person:"));
  const byId = new Map(people.map((p) => [p.id, p]));
  const common = { busy, onInvalid: setError };

  return (
    <div className="mx-auto flex h-full max-w-3xl flex-col gap-6 overflow-y-auto px-4 py-6">
      <div>
        <h1 className="text-xl font-semibold">Budgets</h1>
        <p className="mt-1 text-sm text-neutral-600 dark:text-neutral-300">
          What people may spend on model calls, in US dollars (as the server prices them) or tokens, a day, a week or a month. A person&apos;s own budget comes
          first, then the smallest of their groups&apos;, then the default; the default does not bind admins.
        </p>
      </div>
      <p role="alert" className="min-h-5 text-sm text-red-700 dark:text-red-300">
        {error}
      </p>

      <section aria-labelledby="everyone" className="flex flex-col gap-3">
        <h2 id="everyone" className="text-base font-semibold">
          Everyone
        </h2>
        <BudgetForm
          key={`default-${version}`}
          legend="Default budget"
          budget={budgetOf("default")}
          fallback={variables.default && { budget: variables.default, source: "BUDGET_DEFAULT" }}
          none="None: people without a budget of their own or of a group may spend without limit."
          onSave={(b) => set("default", b)}
          onClear={() => set("default", null)}
          {...common}
        />
        <BudgetForm
          key={`guests-${version}`}
          legend="Guests' budget"
          budget={budgetOf("guests")}
          fallback={variables.guests && { budget: variables.guests, source: "BUDGET_GUESTS" }}
          none="None: guests may spend without limit."
          onSave={(b) => set("guests", b)}
          onClear={() => set("guests", null)}
          {...common}
        />
      </section>

      <section aria-labelledby="groups" className="flex flex-col gap-3">
        <h2 id="groups" className="text-base font-semibold">
          Groups
        </h2>
        <NewGroup key={`new-${version}`} busy={busy} onCreate={(name) => run(() => createGroup(name))} />
        {data.groups.length === 0 && <p className="text-sm text-neutral-600 dark:text-neutral-300">No groups yet.</p>}
        {data.groups.map((group) => (
          <GroupCard
            key={`${group.id}-${version}`}
            group={group}
            people={people}
            busy={busy}
            onRename={(name) => run(() => renameGroup(group.id, name))}
            onDelete={() => run(() => deleteGroup(group.id))}
            onAdd={(personId) => run(() => addGroupMember(group.id, personId))}
            onRemove={(personId) => run(() => removeGroupMember(group.id, personId))}
            onBudget={(b) => set(`group:${group.id}`, b)}
            onInvalid={setError}
          />
        ))}
      </section>

      <section aria-labelledby="people" className="flex flex-col gap-3">
        <h2 id="people" className="text-base font-semibold">
          People
        </h2>
        {personal.length > 0 && (
          <ul aria-label="People with a budget of their own" className="flex flex-col gap-1 text-sm">
            {personal.map((b) => {
              const id = b.scope.slice("person:".length);
              const who = byId.get(id);
              const name = who ? personLabel(who) : id;
              return (
                <li key={b.scope} className="flex items-center justify-between gap-2 border-t border-neutral-200 py-1.5 dark:border-neutral-800">
                  <span>
                    {name}: {budgetText(b)}
                  </span>
                  <button type="button" disabled={busy} onClick={() => set(b.scope, null)} aria-label={`Clear the budget of ${name}`} className={actionClass}>
                    Clear
                  </button>
                </li>
              );
            })}
          </ul>
        )}
        <PersonBudget key={`person-${version}`} people={people} budgetOf={(id) => budgetOf(`person:${id}`)} onSave={(id, b) => set(`person:${id}`, b)} {...common} />
      </section>
    </div>
  );
}

function NewGroup({ busy, onCreate }: { busy: boolean; onCreate(name: string): void }) {
  const id = useId();
  const [name, setName] = useState("");
  function submit(event: FormEvent) {
    event.preventDefault();
    onCreate(name);
  }
  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-2">
      <label htmlFor={id} className="flex flex-col gap-1 text-xs">
        New group&apos;s name
        <input id={id} required maxLength={100} value={name} onChange={(event) => setName(event.target.value)} className={`${fieldClass} w-64`} />
      </label>
      <button type="submit" disabled={busy} className={actionClass}>
        Create group
      </button>
    </form>
  );
}

interface GroupCardProps {
  group: BudgetGroup;
  people: PersonChoice[];
  busy: boolean;
  onRename(name: string): void;
  onDelete(): void;
  onAdd(personId: string): void;
  onRemove(personId: string): void;
  onBudget(budget: Budget | null): void;
  onInvalid(message: string): void;
}

function GroupCard({ group, people, busy, onRename, onDelete, onAdd, onRemove, onBudget, onInvalid }: GroupCardProps) {
  const id = useId();
  const [name, setName] = useState(group.name);
  const [confirming, setConfirming] = useState(false);
  const inGroup = new Set(group.members.map((m) => m.id));
  const others = people.filter((p) => !inGroup.has(p.id));
  const [picked, setPicked] = useState("");

  return (
    <section aria-labelledby={`${id}-name`} className="flex flex-col gap-3 rounded-lg border border-neutral-200 p-3 dark:border-neutral-700">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 id={`${id}-name`} className="font-medium">
          {group.name}
        </h3>
        {confirming ? (
          <div role="group" aria-label={`Delete ${group.name}?`} className="flex items-center gap-1.5 text-xs">
            <span>Delete it, and its budget?</span>
            <button type="button" disabled={busy} onClick={onDelete} className={actionClass}>
              Delete
            </button>
            <button type="button" onClick={() => setConfirming(false)} className={actionClass}>
              Keep
            </button>
          </div>
        ) : (
          <button type="button" disabled={busy} onClick={() => setConfirming(true)} aria-label={`Delete group ${group.name}`} className={actionClass}>
            Delete group
          </button>
        )}
      </div>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onRename(name);
        }}
        className="flex flex-wrap items-end gap-2"
      >
        <label htmlFor={`${id}-rename`} className="flex flex-col gap-1 text-xs">
          Name of the group
          <input id={`${id}-rename`} required maxLength={100} value={name} onChange={(event) => setName(event.target.value)} className={`${fieldClass} w-64`} />
        </label>
        <button type="submit" disabled={busy || name === group.name} className={actionClass}>
          Rename
        </button>
      </form>

      <div>
        <h4 className="text-xs font-medium text-neutral-600 dark:text-neutral-300">Members</h4>
        {group.members.length === 0 ? (
          <p className="text-sm">Nobody yet.</p>
        ) : (
          <ul aria-label={`Members of ${group.name}`} className="flex flex-col text-sm">
            {group.members.map((member) => {
              const label = personLabel(member.email ? member : { name: member.name, email: member.id });
              return (
                <li key={member.id} className="flex items-center justify-between gap-2 border-t border-neutral-200 py-1.5 dark:border-neutral-800">
                  <span>
                    {label}
                    {member.fromClaim && <span className="ml-1 text-xs text-neutral-600 dark:text-neutral-300">(from their sign-in provider&apos;s groups)</span>}
                  </span>
                  <button type="button" disabled={busy} onClick={() => onRemove(member.id)} aria-label={`Remove ${label} from ${group.name}`} className={actionClass}>
                    Remove
                  </button>
                </li>
              );
            })}
          </ul>
        )}
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (picked) onAdd(picked);
          }}
          className="mt-2 flex flex-wrap items-end gap-2"
        >
          <label htmlFor={`${id}-add`} className="flex flex-col gap-1 text-xs">
            Add a person
            <select id={`${id}-add`} value={picked} onChange={(event) => setPicked(event.target.value)} className={`${fieldClass} w-64`}>
              <option value="">Choose someone…</option>
              {others.map((p) => (
                <option key={p.id} value={p.id}>
                  {personLabel(p)}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={busy || !picked} className={actionClass}>
            Add
          </button>
        </form>
      </div>

      <BudgetForm
        legend={`Budget of ${group.name}`}
        budget={group.budget}
        none="None: the group adds no budget to its members'."
        busy={busy}
        onSave={(b) => onBudget(b)}
        onClear={() => onBudget(null)}
        onInvalid={onInvalid}
      />
    </section>
  );
}

interface PersonBudgetProps {
  people: PersonChoice[];
  budgetOf(id: string): Budget | null;
  busy: boolean;
  onSave(id: string, budget: Budget): void;
  onInvalid(message: string): void;
}

/** Sets one person's own budget: the person picked, then the budget. */
function PersonBudget({ people, budgetOf, busy, onSave, onInvalid }: PersonBudgetProps) {
  const id = useId();
  const [picked, setPicked] = useState("");
  return (
    <BudgetForm
      // Each person picked: the fields start from their budget.
      resetOn={picked}
      legend="A person's budget"
      budget={picked ? budgetOf(picked) : null}
      none={picked ? "None of their own." : "Choose a person."}
      busy={busy}
      ready={picked !== ""}
      onSave={(b) => onSave(picked, b)}
      onInvalid={onInvalid}
    >
      <label htmlFor={`${id}-person`} className="flex flex-col gap-1 text-xs">
        Person
        <select id={`${id}-person`} value={picked} onChange={(event) => setPicked(event.target.value)} className={`${fieldClass} w-64`}>
          <option value="">Choose someone…</option>
          {people.map((p) => (
            <option key={p.id} value={p.id}>
              {personLabel(p)}
            </option>
          ))}
        </select>
      </label>
    </BudgetForm>
  );
}
