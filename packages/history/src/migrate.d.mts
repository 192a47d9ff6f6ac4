export function ensureDatabase(databaseUrl: string): Promise<boolean>;
export interface MigrateOptions {
  log?: (message: string) => void;
  lockWaitMs?: number;
  /** Where the migrations are: the package's db/migrations/ unless given. */
  dir?: string;
  /** Where the database functions are, one file each: the package's db/functions/ unless given. */
  functionsDir?: string;
}
export function migrate(databaseUrl: string, options?: MigrateOptions): Promise<string[]>;
/** migrate() on a connection the caller holds, and ends afterwards: its session holds the migration lock until then. */
export function migrateOn(client: import("pg").ClientBase, options?: MigrateOptions): Promise<string[]>;
/** Applies each function file whose text changed since it was last applied, in one transaction; their names. */
export function applyFunctions(client: import("pg").ClientBase, functionsDir?: string): Promise<string[]>;
export const DEFAULT_LOCK_WAIT_MS: number;
export const MIGRATION_LOCK_KEY: string;
export class MigrationLockTimeout extends Error {
  constructor(waitMs: number);
}
export function recreateDatabase(databaseUrl: string): Promise<void>;
