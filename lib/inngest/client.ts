import { Inngest } from "inngest";
import { env } from "@/lib/env";
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

// The SDK reads INNGEST_DEV, INNGEST_BASE_URL, INNGEST_EVENT_KEY and
// INNGEST_SIGNING_KEY itself; lib/inngest/settings.ts decides whether to use
// it at all. Built in lib/, because the runtime sends events with it; the
// functions (lib/inngest/functions/) and the serve route import it from here.
export const inngest = new ThreadlineInngest({ id: "threadline", checkpointing: checkpointingFrom(env()), fetch: inngestFetch });
