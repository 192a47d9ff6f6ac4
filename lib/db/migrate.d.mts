export function ensureDatabase(databaseUrl: string): Promise<boolean>;
export function migrate(databaseUrl: string, options?: { log?: (message: string) => void }): Promise<string[]>;
export function recreateDatabase(databaseUrl: string): Promise<void>;
