// The Memory page's buttons, as the Shared links page draws its own.

export const ACTION =
  "rounded-lg border border-neutral-300 px-2.5 py-1.5 text-xs font-medium outline-none hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-neutral-500 disabled:opacity-60 dark:border-neutral-600 dark:hover:bg-neutral-800";

export const PRIMARY =
  "rounded-lg bg-neutral-900 px-3 py-1.5 text-xs font-medium text-white outline-none hover:bg-neutral-700 focus-visible:ring-2 focus-visible:ring-neutral-500 focus-visible:ring-offset-2 disabled:opacity-60 dark:bg-neutral-100 dark:text-neutral-900 dark:hover:bg-neutral-300";
