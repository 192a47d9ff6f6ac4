import "server-only";
import { z } from "zod";
import { slice, wholeNumber, type SettingsOf } from "@/lib/env";

/** The memory's part of the configuration: whether the install keeps memories at all, and how many and how long. */
export const memorySettings = slice({
  shape: {
    /** "off": nobody's memories are kept, listed or given to a model. */
    MEMORY: z.enum(["on", "off"], { message: 'must be "on" or "off"' }).default("on").describe("memory across conversations"),
    /** "off": replies teach nothing by themselves; memories are still added by hand (and by the agents' tools) and given to the model. */
    MEMORY_LEARNING: z.enum(["on", "off"], { message: 'must be "on" or "off"' }).default("on").describe("learning memories after replies"),
    /** The most memories one person keeps; past it, the oldest unused goes. */
    MEMORY_PER_IDENTITY: wholeNumber(1, 10_000).default(500).describe("memories per identity"),
    /** Replies one person's memory learns from per hour (each a model call); past it, a reply teaches nothing. 0: off. */
    RATE_LIMIT_MEMORY_LESSONS_PER_HOUR: wholeNumber(0, 999_999_999).default(60).describe("memory lessons per identity per hour"),
    /** How long the model may take to answer a lesson. */
    MEMORY_LESSON_TIMEOUT_SECONDS: wholeNumber(1, 600).default(60).describe("seconds a memory lesson's model call may take"),
  },
});

/** The memory's configuration. */
export type MemorySettings = SettingsOf<typeof memorySettings>;
