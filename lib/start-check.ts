import "server-only";
import { env } from "@/lib/settings";

/**
 * Run once as the server starts (instrumentation.ts): a bad setting stops it
 * here, with the one line that names it, instead of failing some later turn.
 */
export function checkSettingsAtStart(): void {
  try {
    env();
  } catch (error) {
    console.error(`[threadline] ${(error as Error).message}`);
    process.exit(1);
  }
  // Run as a worker of `npm start` (scripts/run-app.mjs), tell the primary the
  // settings passed: until the first worker says so, an exit is a failed start
  // to report once, not a crash to replace.
  process.send?.({ threadline: "configured" });
}
