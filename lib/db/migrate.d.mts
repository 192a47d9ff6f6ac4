export function ensureDatabase(databaseUrl: string): Promise<boolean>;
export function migrate(databaseUrl: string, options?: { log?: (message: string) => void }): Promise<string[]>;
