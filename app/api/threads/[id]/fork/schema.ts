import { z } from "zod";

export const forkThreadSchema = z.object({
  messageId: z.string({ message: "must be a string" }).min(1, "must not be empty").max(256, "must be at most 256 characters"),
});
