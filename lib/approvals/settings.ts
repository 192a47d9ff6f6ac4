import "server-only";
import { z } from "zod";
import { slice, wholeNumber, type SettingsOf } from "@/lib/env";
import { TOOL_APPROVAL_MODES } from "@/lib/protocol/approvals";

/** The approvals wing's part of the configuration: which calls ask, how long they wait, how often one message may ask. */
export const approvalsSettings = slice({
  shape: {
    /** The most times one message's reply goes on after the user's decisions (each a model call); the last round may ask no more. */
    MAX_TOOL_ROUNDS: wholeNumber(1, 100).default(10).describe("approval rounds per message"),
    /** Which tool calls wait for the user's approval: as each tool declares (the ones that change something), every call, or none. */
    TOOL_APPROVAL: z.enum(TOOL_APPROVAL_MODES, { message: 'must be "default", "all" or "none"' }).default("default").describe("tool approval"),
    /** How long a tool call waits for the user's decision; past it, the call is denied as expired. */
    TOOL_APPROVAL_TIMEOUT_HOURS: wholeNumber(1, 8_760).default(24).describe("tool approval timeout, hours"),
  },
});

/** The approvals wing's configuration. */
export type ApprovalsSettings = SettingsOf<typeof approvalsSettings>;
