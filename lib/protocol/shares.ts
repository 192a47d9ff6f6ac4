// Share links: what POST /api/threads/:id/shares takes, what it and
// GET /api/shares answer, and the snapshot a link shows (GET /s/:shareId,
// its Markdown, and the fork "Continue this conversation" makes). A snapshot
// is the thread's active branch as it was when the link was made, with what
// the options hide already taken out: nothing hidden is stored with it.
// Isomorphic, without zod (the page imports it): the request's schema is
// lib/protocol/share-request.ts.
import type { ExportedDocument, ExportedMessage } from "./thread-export";
import type { FileMediaType } from "./files";

/** How long a link may live, in days; null: until it is revoked. */
export const SHARE_EXPIRY_DAYS = [1, 7, 30] as const;
export type ShareExpiryDays = (typeof SHARE_EXPIRY_DAYS)[number] | null;

/** What a link shows besides the messages' text. */
export interface ShareOptions {
  /** The documents the agents wrote, each as it was at the branch's end, in a side panel. */
  documents: boolean;
  /** The files attached to the messages: otherwise each message says how many it held, and nothing else of them. */
  attachments: boolean;
  /** What each tool call was given and gave back: otherwise a call is its name only ("Used calculate"). */
  toolDetails: boolean;
  /** What the model wrote while it thought. */
  reasoning: boolean;
}

export const DEFAULT_SHARE_OPTIONS: ShareOptions = { documents: true, attachments: false, toolDetails: false, reasoning: false };

/** The body of POST /api/threads/:id/shares (lib/protocol/share-request.ts checks it). */
export interface ShareRequest {
  expiresInDays: ShareExpiryDays;
  include?: Partial<ShareOptions>;
}

/** A link as its owner sees it. */
export interface SharedLink {
  /** The link's id: 128 random bits and the server's signature of them, in base64url (43 characters). */
  id: string;
  /** Where anyone opens it. */
  url: string;
  /** The thread it was made from; null once that thread is deleted (which revokes the link). */
  threadId: string | null;
  /** The thread's title when the link was made (null: it had none yet). */
  title: string | null;
  createdAt: string;
  /** When it stops opening; null: never. */
  expiresAt: string | null;
  options: ShareOptions;
  /** How many times the page was opened (counted at this server, not a cache in front of it; nobody's address is kept). */
  views: number;
  /** The link has expired (it still counts among the owner's links until they revoke it). */
  expired: boolean;
}

export interface ShareResponse {
  share: SharedLink;
}

export interface SharesResponse {
  shares: SharedLink[];
}

/** A file of the snapshot: the owner's file of these bytes, served by the link while it lives. */
export interface SharedFile {
  id: string;
  name: string;
  mediaType: FileMediaType;
  size: number;
}

/** A message of the snapshot: its parts as the options left them. */
export interface SharedMessage extends Omit<ExportedMessage, "feedback"> {
  /** How many files the message carried that the link does not show. */
  withheldFiles?: number;
}

/** What a link shows: one branch, its documents and files as the options allow, as they were when it was made. */
export interface SharedSnapshot {
  title: string | null;
  /** When the thread began. */
  startedAt: string;
  /** The branch, first message first: each the chosen child of the one before. */
  messages: SharedMessage[];
  documents: ExportedDocument[];
  files: SharedFile[];
}

/** The public page's address of a link. */
export const sharePath = (shareId: string) => `/s/${shareId}`;

/** The public address of one of a link's files. */
export const sharedFilePath = (shareId: string, fileId: string) => `/s/${shareId}/files/${fileId}`;

/** A share id as this server writes them: 32 bytes in base64url, no padding. */
export const SHARE_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;
