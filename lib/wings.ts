import "server-only";
import { approvalsWing } from "@/lib/approvals/wing";
import { documentsWing } from "@/lib/documents/wing";
import { feedbackWing } from "@/lib/feedback/wing";
import { filesWing } from "@/lib/files/wing";
import { usageWing } from "@/lib/models/wing";
import { remindersWing } from "@/lib/reminders/wing";

/**
 * The app's wings (lib/wing.ts), in the order their hooks run: a new feature
 * with rows of its own beside a thread's is a folder and a line here.
 */
export const WINGS = [filesWing, remindersWing, documentsWing, feedbackWing, usageWing, approvalsWing] as const;
