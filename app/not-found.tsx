import Link from "next/link";

export default function NotFound() {
  return (
    <div className="flex h-full flex-col items-center justify-center gap-3 px-4 text-center">
      <h1 className="text-2xl font-semibold">Thread not found</h1>
      <p className="max-w-md text-sm text-neutral-600 dark:text-neutral-300">
        This chat does not exist, was deleted, or belongs to someone else.
      </p>
      <Link
        href="/"
        className="mt-2 rounded-lg bg-neutral-900 px-4 py-2 text-sm font-medium text-white hover:bg-neutral-700 dark:bg-neutral-100 dark:text-neutral-900 dark:hover:bg-neutral-300"
      >
        Start a new chat
      </Link>
    </div>
  );
}
