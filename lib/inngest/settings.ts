import "server-only";
import type { CoreSettings, RawEnv } from "@/lib/env";
import { inngestConfigured as configuredBy, inngestDevRefusal } from "./env.mjs";

/** The variables env.mjs decides by, from lib/env.ts's checked values. */
function inngestSettings(settings: CoreSettings): RawEnv {
  return {
    NODE_ENV: settings.NODE_ENV,
    INNGEST_DEV: settings.INNGEST_DEV,
    INNGEST_DEV_IS_LOCAL: settings.INNGEST_DEV_IS_LOCAL,
    INNGEST_EVENT_KEY: settings.INNGEST_EVENT_KEY,
    INNGEST_SIGNING_KEY: settings.INNGEST_SIGNING_KEY,
  };
}

/** Whether Inngest runs turns, by the rules the start script also applies (see env.mjs). */
export const inngestConfigured = (settings: CoreSettings): boolean => configuredBy(inngestSettings(settings));

/** Why this server must not run turns as configured (INNGEST_DEV in production), or undefined. */
export const inngestRefusal = (settings: CoreSettings): string | undefined => inngestDevRefusal(inngestSettings(settings));
