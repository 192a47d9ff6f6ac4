import { Inngest } from "inngest";
import type { CoreSettings } from "@/lib/env";
import { checkpointingFrom } from "./checkpointing";
import { inngestFetch } from "./inngest-fetch";

/**
 * The SDK works out its headers (which Inngest environment, which platform)
 * from all the environment variables again for every request it sends and every
 * request it serves, which costs more than the rest of building the request.
 * Those variables are read once here, at the first request, like every other
 * setting of this app.
 */
class ThreadlineInngest extends Inngest {
  override get headers(): Record<string, string> {
    // Not a class field: the SDK's constructor may ask before a field would be set.
    let headers = fixedHeaders.get(this);
    if (!headers) fixedHeaders.set(this, (headers = super.headers));
    return { ...headers };
  }
}
const fixedHeaders = new WeakMap<Inngest, Record<string, string>>();

export type InngestClient = Inngest<{ id: "threadline" }>;

type InngestSettings = Pick<
  CoreSettings,
  "INNGEST_DEV" | "INNGEST_BASE_URL" | "INNGEST_EVENT_KEY" | "INNGEST_SIGNING_KEY" | "INNGEST_CHECKPOINTING" | "INNGEST_MAX_RUNTIME_SECONDS"
>;

/**
 * The app's Inngest client (lib/app.ts builds one): the runtime sends events
 * with it, the functions (inngest/functions/) are made with it, the serve
 * route serves them. Its mode, addresses and keys come from the app's
 * configuration, in the SDK's own order (INNGEST_BASE_URL before a dev
 * server's URL in INNGEST_DEV), so the SDK's own reading of the environment
 * decides neither its mode nor where it sends; lib/inngest/settings.ts
 * decides whether to use it at all.
 */
export function createInngestClient(settings: InngestSettings): InngestClient {
  // INNGEST_DEV is 1, 0 or the dev server's URL (lib/env.ts checked it).
  const devMode = settings.INNGEST_DEV !== undefined && !/^(0|false)$/i.test(settings.INNGEST_DEV);
  const devServerUrl = devMode && /^https?:\/\//i.test(settings.INNGEST_DEV!) ? settings.INNGEST_DEV : undefined;
  return new ThreadlineInngest({
    id: "threadline",
    isDev: devMode,
    baseUrl: settings.INNGEST_BASE_URL ?? devServerUrl,
    eventKey: settings.INNGEST_EVENT_KEY,
    signingKey: settings.INNGEST_SIGNING_KEY,
    checkpointing: checkpointingFrom(settings),
    fetch: inngestFetch,
  });
}
