"use client";

import { useEffect, useId, useRef, useState } from "react";
import { useDismiss } from "@/components/ui/useDismiss";
import { ChevronDownIcon, UserIcon } from "@/components/ui/icons";
import { signOut } from "@/lib/client/accounts";
import { usedText } from "@/lib/client/budget-words";
import { useMyBudget } from "@/components/budgets/useMyBudget";
import type { Me } from "@/lib/protocol/accounts";

/**
 * "Account": who is signed in, what they used of their budget, and what they
 * can do from here: the admin's People, Budgets and Spend pages, their shared links and memory, signing out. A guest is offered signing in and up instead;
 * behind a sign-in proxy, the proxy signs people out.
 */
export function AccountMenu({ me }: { me: Me }) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const menuId = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const first = useRef<HTMLElement | null>(null);
  const closeOnEscape = useDismiss(open, root, setOpen, button);
  const budget = useMyBudget();

  useEffect(() => {
    if (open) first.current?.focus();
  }, [open]);

  const item =
    "block w-full rounded-md px-3 py-1.5 text-left text-sm outline-none hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-neutral-500 dark:hover:bg-neutral-700";
  const setFirst = (element: HTMLElement | null) => {
    if (element && !first.current) first.current = element;
  };

  async function leave() {
    setError(null);
    try {
      await signOut();
      window.location.assign("/sign-in");
    } catch (reason) {
      setError((reason as Error).message);
    }
  }

  const user = me.user;
  const shown = user ? user.name || user.email : "Guest";
  return (
    <div
      ref={root}
      className="relative"
      onKeyDown={closeOnEscape}
      onBlur={(event) => {
        if (open && !root.current?.contains(event.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button
        ref={button}
        type="button"
        // "Account" first, then the name the button shows: screen readers and speech input name it as it reads.
        aria-label={`Account: ${shown}`}
        aria-expanded={open}
        aria-controls={menuId}
        onClick={() => setOpen((o) => !o)}
        className="inline-flex max-w-48 items-center gap-1.5 rounded-lg px-2.5 py-1.5 text-sm text-neutral-700 outline-none hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-neutral-500 dark:text-neutral-200 dark:hover:bg-neutral-800"
      >
        <UserIcon />
        <span className="hidden truncate sm:inline">{shown}</span>
        <ChevronDownIcon className={open ? "rotate-180" : undefined} />
      </button>
      <div
        id={menuId}
        hidden={!open}
        className="absolute right-0 z-20 mt-1 w-56 rounded-lg border border-neutral-200 bg-white p-1 shadow-lg dark:border-neutral-700 dark:bg-neutral-800"
      >
        <p className="border-b border-neutral-200 px-3 pt-1 pb-2 text-xs text-neutral-600 dark:border-neutral-700 dark:text-neutral-300">
          {user ? (
            <>
              <span className="block truncate font-medium text-neutral-900 dark:text-neutral-100">{user.name}</span>
              <span className="block truncate">{user.email}</span>
              {user.role === "admin" && <span className="block">Admin</span>}
            </>
          ) : (
            "You are chatting as a guest. Sign up to keep your chats on any device."
          )}
          {budget && (
            <span data-my-budget className="mt-1 block">
              {usedText(budget)}
            </span>
          )}
        </p>
        <ul aria-label="Account" className="pt-1">
          {user?.role === "admin" && (
            <>
              <li>
                <a ref={setFirst} href="/admin/people" className={item}>
                  People
                </a>
              </li>
              <li>
                <a href="/admin/budgets" className={item}>
                  Budgets
                </a>
              </li>
              <li>
                <a href="/admin/spend" className={item}>
                  Spend
                </a>
              </li>
            </>
          )}
          {/* Everyone here may share a thread (a guest too): their links are theirs to revoke. */}
          <li>
            <a ref={setFirst} href="/shares" className={item}>
              Shared links
            </a>
          </li>
          {/* What the person's chats remember about them, a guest's too (it follows them to their account). */}
          <li>
            <a href="/memory" className={item}>
              Memory
            </a>
          </li>
          {me.guest && (
            <>
              <li>
                <a ref={setFirst} href="/sign-in" className={item}>
                  Sign in
                </a>
              </li>
              <li>
                <a href="/sign-up" className={item}>
                  Create account
                </a>
              </li>
            </>
          )}
          {user && me.mode === "accounts" && (
            <>
              <li>
                <a ref={setFirst} href="/account/passkeys" className={item}>
                  Passkeys
                </a>
              </li>
              <li>
                <button type="button" onClick={leave} className={item}>
                  Sign out
                </button>
              </li>
            </>
          )}
        </ul>
        {error && (
          <p role="alert" className="px-3 py-1 text-xs text-red-700 dark:text-red-300">
            {error}
          </p>
        )}
      </div>
    </div>
  );
}
