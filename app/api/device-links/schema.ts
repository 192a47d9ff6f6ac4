import { z } from "zod";

export const claimDeviceLinkSchema = z.object({
  code: z.string({ message: "must be a string" }).regex(/^[A-Za-z0-9_-]{43}$/, "must be the code from a device link"),
});
