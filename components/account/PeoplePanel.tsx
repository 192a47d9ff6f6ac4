"use client";

import { useState, useSyncExternalStore, type ReactNode } from "react";
import { changePerson, makeInvite, makeResetLink } from "@/lib/client/accounts";
import type { Invite, Person, PersonChange, ResetLink } from "@/lib/protocol/accounts";
import { CopyButton } from "@/components/chat/CopyButton";

const action =
  "rounded-md border border-neutral-300 px-2.5 py-1 text-xs font-medium outline-none hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-neutral-500 disabled:opacity-60 dark:border-neutral-600 dark:hover:bg-neutral-800";

const STATUS: Record<Person["status"], string> = { active: "Active", pending: "Waiting for approval", disabled: "Disabled" };

/** A link made for someone, shown once, with what it does and until when. */
function ShownLink({ label, url, children }: { label: string; url: string; children: ReactNode }) {
  return (
    <div className="rounded-lg border border-neutral-200 p-3 text-sm dark:border-neutral-700">
      <p>{children}</p>
      <div className="mt-2 flex items-center gap-2">
        <input readOnly aria-label={label} value={url} className="min-w-0 flex-1 rounded-md border border-neutral-300 bg-transparent px-2 py-1 font-mono text-xs dark:border-neutral-600" />
        <CopyButton text={url} />
      </div>
    </div>
  );
}

const noChange = () => () => {};

/** People: invite someone, approve a waiting sign-up, disable or enable an account, make or unmake an admin, make a reset link. */
export function PeoplePanel({ me, initial }: { me: string; initial: Person[] }) {
  const [people, setPeople] = useState(initial);
  const [invite, setInvite] = useState<Invite | null>(null);
  const [resetLink, setResetLink] = useState<(ResetLink & { email: string }) | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Server-rendered, the button does nothing until the page is hydrated: a click before then would be lost.
  const hydrated = useSyncExternalStore(noChange, () => true, () => false);

  async function run<T>(work: () => Promise<T>, done: (value: T) => void) {
    setBusy(true);
    setError(null);
    try {
      done(await work());
    } catch (reason) {
      setError((reason as Error).message);
    } finally {
      setBusy(false);
    }
  }

  const change = (person: Person, what: PersonChange["action"]) =>
    run(
      () => changePerson(person.id, what),
      (changed) => setPeople((all) => all.map((p) => (p.id === changed.id ? changed : p))),
    );

  return (
    <div className="mx-auto flex h-full max-w-3xl flex-col gap-4 overflow-y-auto px-4 py-6">
      <div className="flex items-center justify-between gap-3">
        <h1 className="text-xl font-semibold">People</h1>
        <button type="button" disabled={busy || !hydrated} onClick={() => run(makeInvite, setInvite)} className={action}>
          Invite
        </button>
      </div>
      {invite && (
        <ShownLink label="Invite link" url={invite.url}>
          Send this link to the person you invite. It makes one account, and works until {new Date(invite.expiresAt).toLocaleString()}.
        </ShownLink>
      )}
      {resetLink && (
        <ShownLink label={`Reset link for ${resetLink.email}`} url={resetLink.url}>
          Hand this link to {resetLink.email} yourself: it sets a new password once, until {new Date(resetLink.expiresAt).toLocaleTimeString()}, and ends their other
          sessions. It replaces any reset link they had. You will not see it again.
        </ShownLink>
      )}
      <p role="alert" className="min-h-5 text-sm text-red-700 dark:text-red-300">
        {error}
      </p>
      <table className="w-full text-left text-sm">
        <thead className="text-xs text-neutral-600 dark:text-neutral-300">
          <tr>
            <th scope="col" className="py-2 pr-2 font-medium">Person</th>
            <th scope="col" className="py-2 pr-2 font-medium">Role</th>
            <th scope="col" className="py-2 pr-2 font-medium">Status</th>
            <th scope="col" className="py-2 font-medium">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {people.map((person) => (
            <tr key={person.id} className="border-t border-neutral-200 dark:border-neutral-800">
              <td className="py-2 pr-2">
                <span className="block font-medium">{person.name}</span>
                <span className="block text-xs text-neutral-600 dark:text-neutral-300">{person.email}</span>
              </td>
              <td className="py-2 pr-2">{person.role === "admin" ? "Admin" : "Member"}</td>
              <td className="py-2 pr-2">{STATUS[person.status]}</td>
              <td className="py-2">
                {person.id !== me && (
                  <div role="group" aria-label={`Actions for ${person.email}`} className="flex flex-wrap justify-end gap-1.5">
                    {person.status === "pending" && (
                      <button type="button" disabled={busy} onClick={() => change(person, "approve")} className={action}>
                        Approve
                      </button>
                    )}
                    {person.status === "active" && (
                      <button type="button" disabled={busy} onClick={() => change(person, "disable")} className={action}>
                        Disable
                      </button>
                    )}
                    {person.status === "disabled" && (
                      <button type="button" disabled={busy} onClick={() => change(person, "enable")} className={action}>
                        Enable
                      </button>
                    )}
                    {person.status !== "disabled" && (
                      <button
                        type="button"
                        disabled={busy}
                        onClick={() => run(() => makeResetLink(person.id), (link) => setResetLink({ ...link, email: person.email }))}
                        className={action}
                      >
                        Reset link
                      </button>
                    )}
                    {person.role === "member" ? (
                      <button type="button" disabled={busy} onClick={() => change(person, "make-admin")} className={action}>
                        Make admin
                      </button>
                    ) : (
                      <button type="button" disabled={busy} onClick={() => change(person, "unmake-admin")} className={action}>
                        Remove admin
                      </button>
                    )}
                  </div>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
