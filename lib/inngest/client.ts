import { Inngest } from "inngest";
import { env } from "@/lib/env";
import { checkpointingFrom } from "./checkpointing";

// The SDK reads INNGEST_DEV, INNGEST_BASE_URL, INNGEST_EVENT_KEY and
// INNGEST_SIGNING_KEY itself; lib/inngest/settings.ts decides whether to use
// it at all. Built in lib/, because the runtime sends events with it; the
// functions (inngest/functions/) and the serve route import it from here.
export const inngest = new Inngest({ id: "threadline", checkpointing: checkpointingFrom(env()) });
