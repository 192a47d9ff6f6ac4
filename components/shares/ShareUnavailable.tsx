/** What a link that does not open shows: gone (revoked or expired, a 410) or unknown (a 404), the same page but for its words. */
export function ShareUnavailable({ gone }: { gone: boolean }) {
  return (
    <main className="print-plain flex min-h-dvh flex-col items-center justify-center gap-3 px-4 text-center">
      <p className="text-xs font-medium tracking-wide text-neutral-600 uppercase dark:text-neutral-300">Shared conversation</p>
      <h1 className="text-2xl font-semibold">{gone ? "This link is no longer available" : "Link not found"}</h1>
      <p className="max-w-md text-sm text-neutral-600 dark:text-neutral-300">
        {gone
          ? "Its owner revoked it, or it has expired. Ask them for a new link."
          : "There is no shared conversation at this address. Check that the link was copied whole."}
      </p>
    </main>
  );
}
