import { inngestEssentials } from "../support/inngest-essentials";

// The one file that runs Inngest functions in plain async mode, one request per
// step (a self-hoster's INNGEST_CHECKPOINTING=0); every other Inngest test runs
// them checkpointed, as the SDK does by default. The same essentials, checkpointed:
// inngest-checkpointed.test.ts.
inngestEssentials("async");
