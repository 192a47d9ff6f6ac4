export const LOCK_FILE: string;
export function lockDataDir(dataDir: string): { release: () => void; holder?: undefined } | { holder: { pid?: number; host?: string } };
