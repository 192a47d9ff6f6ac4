// Who is signed in and who the admins manage: what GET /api/me and the
// admin's people routes answer, for the pages that show them.
import { z } from "zod";

export const AUTH_MODE_NAMES = ["accounts", "proxy", "open"] as const;
export type AuthMode = (typeof AUTH_MODE_NAMES)[number];

export type PersonRole = "admin" | "member";
export type PersonStatus = "active" | "pending" | "disabled";

export interface Person {
  id: string;
  name: string;
  email: string;
  role: PersonRole;
  status: PersonStatus;
  createdAt: string;
}

/** GET /api/me: the signed-in person (null for a guest or nobody), whether this is a guest, and the install's mode. */
export interface Me {
  user: { id: string; name: string; email: string; role: PersonRole } | null;
  guest: boolean;
  mode: AuthMode;
}

/** PATCH /api/admin/people/:id: one change at a time. */
export const personChangeSchema = z.strictObject({
  action: z.enum(["approve", "disable", "enable", "make-admin", "unmake-admin"]),
});
export type PersonChange = z.infer<typeof personChangeSchema>;

/** POST /api/admin/invites answers the link, shown once. */
export interface Invite {
  url: string;
  expiresAt: string;
}

/** POST /api/admin/people/:id/reset-link answers a one-time link that sets the person's password, shown once. */
export interface ResetLink {
  url: string;
  expiresAt: string;
}
