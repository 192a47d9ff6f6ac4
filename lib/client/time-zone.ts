// The page's IANA time zone, for the server to read a wall-clock time ("at
// 5 pm") as the user's. Undefined where the browser names none the server
// would take: a zone it does not list is refused, and without one the
// server's default is better than a refused request.

export function pageTimeZone(): string | undefined {
  try {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (!zone) return undefined;
    return zone === "UTC" || Intl.supportedValuesOf("timeZone").includes(zone) ? zone : undefined;
  } catch {
    return undefined;
  }
}
