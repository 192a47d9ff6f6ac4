export function systemChromium(): string | undefined;
