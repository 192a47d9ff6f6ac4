export const MOCK_MODEL_PORT: number;
export const MOCK_MODEL_URL: string;
export const APP_PORT: number;
export const APP_URL: string;
export const E2E_DATABASE_URL: string;
export const E2E_APP_ENV: Readonly<Record<string, string>>;
