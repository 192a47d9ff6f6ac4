export const MAX_WORKERS: number;
export const DEFAULT_POOL_SIZE: number;
export function workerCount(raw: string | undefined, cores: number): number;
export function poolShare(raw: string | undefined, workers: number): string;
