export function ensureDatabase(databaseUrl: string): Promise<boolean>;
export function migrate(databaseUrl: string, options?: { log?: (message: string) => void; lockWaitMs?: number }): Promise<string[]>;
export const DEFAULT_LOCK_WAIT_MS: number;
export const MIGRATION_LOCK_KEY: string;
export class MigrationLockTimeout extends Error {
  constructor(waitMs: number);
}
export function recreateDatabase(databaseUrl: string): Promise<void>;
