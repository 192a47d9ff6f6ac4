"use client";

import { useCallback, useEffect, useState, type FormEvent } from "react";
import type { PasskeyRow } from "@/lib/client/passkeys";
import { AuthField } from "./AuthField";

const action =
  "rounded-md border border-neutral-300 px-2.5 py-1 text-sm font-medium outline-none hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-neutral-500 disabled:opacity-60 dark:border-neutral-600 dark:hover:bg-neutral-800";

const passkeys = () => import("@/lib/client/passkeys");

/** Passkeys: the person's list, "Add a passkey" (the browser or a security key asks), "Remove". */
export function PasskeysPanel() {
  const [rows, setRows] = useState<PasskeyRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    try {
      setRows(await (await passkeys()).listPasskeys());
    } catch (reason) {
      setError((reason as Error).message);
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  async function run(work: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await work();
      await load();
    } catch (reason) {
      setError((reason as Error).message);
    } finally {
      setBusy(false);
    }
  }

  function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const name = String(new FormData(form).get("name") ?? "").trim();
    void run(async () => {
      await (await passkeys()).addPasskey(name || undefined);
      form.reset();
    });
  }

  return (
    <div className="mx-auto flex h-full max-w-2xl flex-col gap-4 overflow-y-auto px-4 py-6">
      <h1 className="text-xl font-semibold">Passkeys</h1>
      <p className="text-sm text-neutral-700 dark:text-neutral-200">
        A passkey signs you in with your device&apos;s screen lock or a security key, instead of your password.
      </p>
      <form onSubmit={add} className="flex flex-wrap items-end gap-2">
        <div className="min-w-48 flex-1">
          <AuthField label="Passkey name" name="name" maxLength={100} placeholder="This laptop" />
        </div>
        <button type="submit" disabled={busy} className={action}>
          Add a passkey
        </button>
      </form>
      <p role="alert" className="min-h-5 text-sm text-red-700 dark:text-red-300">
        {error}
      </p>
      {rows === null ? (
        <p className="text-sm text-neutral-600 dark:text-neutral-300">Loading your passkeys…</p>
      ) : rows.length === 0 ? (
        <p className="text-sm text-neutral-600 dark:text-neutral-300">You have no passkeys yet.</p>
      ) : (
        <ul aria-label="Your passkeys" className="flex flex-col divide-y divide-neutral-200 dark:divide-neutral-800">
          {rows.map((row) => (
            <li key={row.id} className="flex items-center justify-between gap-3 py-2">
              <span>
                <span className="block text-sm font-medium">{row.name || "Passkey"}</span>
                <span className="block text-xs text-neutral-600 dark:text-neutral-300">Added {new Date(row.createdAt).toLocaleDateString()}</span>
              </span>
              <button
                type="button"
                disabled={busy}
                aria-label={`Remove ${row.name || "passkey"}`}
                onClick={() => run(async () => (await passkeys()).removePasskey(row.id))}
                className={action}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
