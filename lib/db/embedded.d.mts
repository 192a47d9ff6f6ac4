export const EMBEDDED_POOL_SIZE: number;
export class EmbeddedDatabaseError extends Error {}
export function startEmbeddedPostgres(options?: {
  dataDir?: string;
  port?: number;
  maxConnections?: number;
}): Promise<{ url: string; stop(): Promise<void> }>;
