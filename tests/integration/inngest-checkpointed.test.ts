import { inngestEssentials } from "../support/inngest-essentials";

// What inngest-async-mode.test.ts proves with checkpointing off, proved for the
// SDK's default: checkpointed runs (and that they did checkpoint).
inngestEssentials("checkpointed");
