import { z } from "zod";
import { messageId } from "@/lib/protocol/chat";

/** POST /api/threads/:id/versions: the version to put on the thread's active path. */
export const selectVersionSchema = z.object({ messageId });
