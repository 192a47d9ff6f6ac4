import { useEffect, useId, useRef, type InputHTMLAttributes, type ReactNode } from "react";

export const PASSWORD_HINT = "8 to 128 characters. A long phrase is easier to remember and harder to guess.";

/** A labelled field of the sign-in pages; `hint` is read with it by screen readers. */
export function AuthField({ label, hint, ...input }: { label: string; hint?: string } & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <input
        id={id}
        aria-describedby={hint ? `${id}-hint` : undefined}
        className="rounded-lg border border-neutral-300 bg-white px-3 py-2 text-sm text-neutral-900 outline-none focus-visible:ring-2 focus-visible:ring-neutral-500 dark:border-neutral-600 dark:bg-neutral-900 dark:text-neutral-100"
        {...input}
      />
      {hint && (
        <p id={`${id}-hint`} className="text-xs text-neutral-600 dark:text-neutral-300">
          {hint}
        </p>
      )}
    </div>
  );
}

export const primaryButton =
  "w-full rounded-lg bg-neutral-900 px-4 py-2 text-sm font-medium text-white outline-none hover:bg-neutral-700 focus-visible:ring-2 focus-visible:ring-neutral-500 focus-visible:ring-offset-2 disabled:opacity-60 dark:bg-neutral-100 dark:text-neutral-900 dark:hover:bg-neutral-300";

export const secondaryButton =
  "w-full rounded-lg border border-neutral-300 px-4 py-2 text-sm font-medium outline-none hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-neutral-500 disabled:opacity-60 dark:border-neutral-600 dark:hover:bg-neutral-800";

export const textLink = "text-sm underline underline-offset-2 outline-none hover:text-neutral-600 focus-visible:ring-2 focus-visible:ring-neutral-500 dark:hover:text-neutral-300";

/** A refusal, announced as it appears. */
export function AuthError({ message }: { message: string | null }) {
  return (
    <p role="alert" className="min-h-5 text-sm text-red-700 dark:text-red-300">
      {message}
    </p>
  );
}

/**
 * What happened, in place of the form that did it: announced, and focused,
 * so that a keyboard or a screen reader starts from it rather than from the
 * top of the page.
 */
export function AuthNotice({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <div ref={ref} role="status" tabIndex={-1} className="flex flex-col gap-2 rounded-lg text-sm text-neutral-700 outline-none focus-visible:ring-2 focus-visible:ring-neutral-500 dark:text-neutral-200">
      {children}
    </div>
  );
}
