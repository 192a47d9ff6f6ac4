type Env = Record<string, string | undefined>;
export function inngestConfigured(env?: Env): boolean;
export function inngestDevRefusal(env?: Env): string | undefined;
