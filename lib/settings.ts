/**
 * A whole number the operator set in the environment: undefined when unset or
 * blank, else the number, at least `min` and at most `maxDigits` digits long.
 * Anything else throws an error that names the variable and the value, so a
 * bad setting stops the turn or the start with a message that says what to fix.
 */
export function wholeNumberSetting(
  env: Record<string, string | undefined>,
  name: string,
  { min = 0, maxDigits = 9 }: { min?: 0 | 1; maxDigits?: number } = {},
): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const pattern = min === 1 ? new RegExp(`^[1-9]\\d{0,${maxDigits - 1}}$`) : new RegExp(`^\\d{1,${maxDigits}}$`);
  if (!pattern.test(raw)) {
    throw new Error(`${name} must be a whole number${min === 1 ? " > 0" : ", 0 or more"}, not "${raw}".`);
  }
  return Number(raw);
}
