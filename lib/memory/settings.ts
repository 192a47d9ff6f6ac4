import "server-only";
import { z } from "zod";
import { slice, wholeNumber, type SettingsOf } from "@/lib/env";

/** The memory's part of the configuration: whether the install keeps memories at all, and how many and how long. */
export const memorySettings = slice({
  shape: {
    /** "off": nobody's memories are kept, listed or given to a model. */
    MEMORY: z.enum(["on", "off"], { message: 'must be "on" or "off"' }).default("on").describe("memory across conversations"),
    /** The most memories one person keeps; past it, the oldest unused goes. */
    MEMORY_PER_IDENTITY: wholeNumber(1, 10_000).default(500).describe("memories per identity"),
  },
});

/** The memory's configuration. */
export type MemorySettings = SettingsOf<typeof memorySettings>;
