// The body of POST /api/threads/:id/shares (lib/protocol/shares.ts has the
// rest of the contract). Isomorphic: zod and types only.
import { z } from "zod";
import { DEFAULT_SHARE_OPTIONS, SHARE_EXPIRY_DAYS } from "./shares";
import { unknownFieldsOr } from "./unknown-fields";

const flag = (name: string) => z.boolean({ error: `${name} must be true or false` });

export const createShareSchema = z.strictObject(
  {
    expiresInDays: z.union(
      [z.literal(SHARE_EXPIRY_DAYS[0]), z.literal(SHARE_EXPIRY_DAYS[1]), z.literal(SHARE_EXPIRY_DAYS[2]), z.null()],
      { error: `must be ${SHARE_EXPIRY_DAYS.join(", ")} or null (never)` },
    ),
    include: z
      .strictObject(
        {
          documents: flag("documents").default(DEFAULT_SHARE_OPTIONS.documents),
          attachments: flag("attachments").default(DEFAULT_SHARE_OPTIONS.attachments),
          toolDetails: flag("toolDetails").default(DEFAULT_SHARE_OPTIONS.toolDetails),
          reasoning: flag("reasoning").default(DEFAULT_SHARE_OPTIONS.reasoning),
        },
        { error: unknownFieldsOr("must be an object of documents, attachments, toolDetails and reasoning") },
      )
      .default(DEFAULT_SHARE_OPTIONS),
  },
  { error: unknownFieldsOr("must be an object of expiresInDays and include") },
);

export type CreateShare = z.infer<typeof createShareSchema>;
