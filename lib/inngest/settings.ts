import "server-only";
import { env, type RawEnv } from "@/lib/env";
import { inngestConfigured as configuredBy, inngestDevRefusal } from "./env.mjs";

/** The variables env.mjs decides by, from lib/env.ts's checked values. */
function inngestSettings(): RawEnv {
  const settings = env();
  return {
    NODE_ENV: settings.NODE_ENV,
    INNGEST_DEV: settings.INNGEST_DEV,
    INNGEST_DEV_IS_LOCAL: settings.INNGEST_DEV_IS_LOCAL,
    INNGEST_EVENT_KEY: settings.INNGEST_EVENT_KEY,
    INNGEST_SIGNING_KEY: settings.INNGEST_SIGNING_KEY,
  };
}

/** Whether Inngest runs turns, by the rules the start script also applies (see env.mjs); `source`: a test's variables. */
export const inngestConfigured = (source?: RawEnv): boolean => configuredBy(source ?? inngestSettings());

/** Why this server must not run turns as configured (INNGEST_DEV in production), or undefined. */
export const inngestRefusal = (): string | undefined => inngestDevRefusal(inngestSettings());
