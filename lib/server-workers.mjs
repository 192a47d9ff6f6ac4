// How many server workers `npm start` runs, and each one's share of the
// database pool. Plain ESM: the start script reads these before any
// TypeScript is built, and lib/env.ts takes its bounds and default from here,
// so the two never disagree.

/** The most workers WEB_CONCURRENCY may ask for. */
export const MAX_WORKERS = 256;

/** DATABASE_POOL_SIZE when unset: the connections of the whole app, shared by its workers. */
export const DEFAULT_POOL_SIZE = 10;

/**
 * The workers to run: WEB_CONCURRENCY when set (blank counts as unset), else
 * one per core. Throws an Error whose message is the one line that names a
 * bad value, as lib/env.ts words its own.
 */
export function workerCount(raw, cores) {
  const value = raw?.trim();
  if (!value) return Math.max(1, cores);
  const n = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= MAX_WORKERS)) throw new Error(`WEB_CONCURRENCY must be a whole number from 1 to ${MAX_WORKERS}, not "${value}".`);
  return n;
}

/**
 * Each worker's pool: DATABASE_POOL_SIZE (`raw`) divided among `workers`, at
 * least 1 each. A value that is not a whole number is handed on as it is, for
 * the worker's own check (lib/env.ts) to name.
 */
export function poolShare(raw, workers) {
  const value = raw?.trim();
  if (value && !/^\d{1,15}$/.test(value)) return value;
  const total = value ? Number(value) : DEFAULT_POOL_SIZE;
  return String(Math.max(1, Math.floor(total / workers)));
}
