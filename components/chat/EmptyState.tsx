"use client";

export function EmptyState() {
  return (
    <div className="flex flex-1 flex-col items-center justify-end px-4 pb-6 text-center">
      <h1 className="text-2xl font-semibold tracking-tight sm:text-3xl">What can I help with?</h1>
      <p className="mt-2 text-sm text-neutral-500 dark:text-neutral-400">
        Replies stream as they are written, and every chat is saved to your threads.
      </p>
    </div>
  );
}
