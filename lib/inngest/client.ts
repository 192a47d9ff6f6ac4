import { Inngest } from "inngest";

// The SDK reads INNGEST_DEV, INNGEST_BASE_URL, INNGEST_EVENT_KEY and
// INNGEST_SIGNING_KEY itself; lib/runtime decides whether to use it at all.
// Built here, in lib/, because the runtime sends events with it; inngest/
// re-exports it for the functions and the serve route.
export const inngest = new Inngest({ id: "threadline" });
