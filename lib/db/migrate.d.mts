export function ensureDatabase(databaseUrl: string): Promise<boolean>;
export interface MigrateOptions {
  log?: (message: string) => void;
  lockWaitMs?: number;
  /** Where the migrations are: the repository's migrations/ unless given. */
  dir?: string;
}
export function migrate(databaseUrl: string, options?: MigrateOptions): Promise<string[]>;
/** migrate() on a connection the caller holds, and ends afterwards: its session holds the migration lock until then. */
export function migrateOn(client: import("pg").ClientBase, options?: MigrateOptions): Promise<string[]>;
export const DEFAULT_LOCK_WAIT_MS: number;
export const MIGRATION_LOCK_KEY: string;
export class MigrationLockTimeout extends Error {
  constructor(waitMs: number);
}
export function recreateDatabase(databaseUrl: string): Promise<void>;
