export const DEFAULT_DATABASE_URL: string;
export function redact(url: string): string;
