// Typed calls to the thread API. Every failure becomes an AppError whose message
// can be shown to the user as is.
import { AppError, fromErrorBody } from "@threadline/history/errors";
import type { ApprovalDecisionResponse } from "@/lib/protocol/approvals";
import { pageTimeZone } from "@/lib/client/time-zone";
import type { ThreadUsage } from "@/lib/protocol/usage";
import type { SharedLink, ShareRequest, ShareResponse, SharesResponse } from "@/lib/protocol/shares";
import type { MemoriesResponse, MemoryFile, MemoryImportResponse, MemoryResponse, MemorySettingsResponse } from "@/lib/protocol/memory";
import type { Feedback, FeedbackRequest, FeedbackResponse, ThreadFeedback } from "@/lib/protocol/feedback";
import type {
  MessagesPage,
  MessageVersions,
  SearchPage,
  SelectedVersion,
  ThreadPage,
  ThreadRead,
  ThreadResponse,
  ThreadSummary,
  VersionsPage,
} from "@/lib/protocol/threads";

async function request<T>(path: string, init: RequestInit = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      ...init,
      cache: "no-store",
      // Every body is JSON and says so: the server refuses one that does not (a cross-site form cannot).
      headers: init.body !== undefined ? { "content-type": "application/json", ...init.headers } : init.headers,
    });
  } catch (cause) {
    throw new AppError("internal:network", "Could not reach the server. Check your connection.", { cause });
  }
  if (response.status === 204) return undefined as T;
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) throw fromErrorBody(body, response.status);
  return body as T;
}

const threadPath = (id: string) => `/api/threads/${encodeURIComponent(id)}`;

export function listThreads({ cursor, limit }: { cursor?: string; limit?: number } = {}): Promise<ThreadPage> {
  const query = new URLSearchParams();
  if (limit) query.set("limit", String(limit));
  if (cursor) query.set("cursor", cursor);
  const search = query.toString();
  const suffix = search ? `?${search}` : "";
  return request<ThreadPage>(`/api/threads${suffix}`);
}

export async function renameThread(id: string, title: string): Promise<ThreadSummary> {
  const { thread } = await request<{ thread: ThreadSummary }>(threadPath(id), {
    method: "PATCH",
    body: JSON.stringify({ title }),
  });
  return thread;
}

export function deleteThread(id: string): Promise<void> {
  return request<void>(threadPath(id), { method: "DELETE" });
}

/** The owner has seen the thread's replies so far (the page shows it); answers with the server's time of it. */
export function markThreadRead(id: string): Promise<ThreadRead> {
  return request<ThreadRead>(`${threadPath(id)}/read`, { method: "POST" });
}

/** Server-sent events (ThreadNews), one per change to the visitor's threads. */
export const THREAD_NEWS_URL = "/api/threads/events";

/** Asks the server to end the thread's generation; it keeps the partial reply. */
export async function stopThreadGeneration(id: string): Promise<boolean> {
  const { stopped } = await request<{ stopped: boolean }>(`${threadPath(id)}/stop`, { method: "POST" });
  return stopped;
}

export interface DeviceLinkState {
  /** Only right after it is made: the server keeps a digest, never the code. */
  code?: string;
  expiresAt: string;
}

/** A new one-time link to this identity for another browser; the previous one stops working. */
export async function createDeviceLink(): Promise<DeviceLinkState> {
  return (await request<{ link: DeviceLinkState }>("/api/device-links", { method: "POST" })).link;
}

export async function activeDeviceLink(): Promise<DeviceLinkState | null> {
  return (await request<{ link: DeviceLinkState | null }>("/api/device-links")).link;
}

export function revokeDeviceLink(): Promise<void> {
  return request<void>("/api/device-links", { method: "DELETE" });
}

/** Makes this browser the identity the link carries. */
export async function claimDeviceLink(code: string): Promise<void> {
  await request<{ ok: true }>("/api/device-links/claim", { method: "POST", body: JSON.stringify({ code }) });
}

export function searchThreads(q: string, { cursor, signal }: { cursor?: string; signal?: AbortSignal } = {}): Promise<SearchPage> {
  const query = new URLSearchParams({ q });
  if (cursor) query.set("cursor", cursor);
  return request<SearchPage>(`/api/search?${query}`, { signal });
}

/** The thread's newest page of messages (oldest first), and the cursor of the page before it. */
export function latestMessages(threadId: string): Promise<MessagesPage> {
  return request<MessagesPage>(`${threadPath(threadId)}/messages`);
}

/** The page of a thread's messages just before `cursor` (oldest first), and the cursor of the page before it. */
export function olderMessages(threadId: string, cursor: string): Promise<MessagesPage> {
  return request<MessagesPage>(`${threadPath(threadId)}/messages?cursor=${encodeURIComponent(cursor)}`);
}

/** What the thread's model calls spent: in total, by agent, purpose, model and reply. */
export function threadUsage(threadId: string): Promise<ThreadUsage> {
  return request<ThreadUsage>(`${threadPath(threadId)}/usage`);
}

/** The thread's feedback by reply version. */
export async function threadFeedback(threadId: string): Promise<Record<string, Feedback>> {
  return (await request<ThreadFeedback>(`${threadPath(threadId)}/feedback`)).feedback;
}

/** Sets, changes or (rating null) clears the feedback on one reply version; answers with what stands. */
export async function putFeedback(threadId: string, messageId: string, body: FeedbackRequest): Promise<Feedback | null> {
  const path = `${threadPath(threadId)}/messages/${encodeURIComponent(messageId)}/feedback`;
  return (await request<FeedbackResponse>(path, { method: "PUT", body: JSON.stringify(body) })).feedback;
}

/** Each message of the thread's active path that has other versions ("2 / 3"). */
export async function threadVersions(threadId: string): Promise<MessageVersions[]> {
  return (await request<VersionsPage>(`${threadPath(threadId)}/versions`)).versions;
}

/** Puts a version of a message on the thread's path; answers with the thread's latest page along it and the new positions. */
export function selectVersion(threadId: string, messageId: string): Promise<SelectedVersion> {
  return request<SelectedVersion>(`${threadPath(threadId)}/versions`, { method: "POST", body: JSON.stringify({ messageId }) });
}

/** A new thread holding this one up to and including `messageId`. */
export async function forkThread(threadId: string, messageId: string): Promise<ThreadSummary> {
  return (await request<ThreadResponse>(`${threadPath(threadId)}/fork`, { method: "POST", body: JSON.stringify({ messageId }) })).thread;
}

/** A thread made from an exported one: the export file, sent as it is (the server reads it as it arrives and checks it). */
export async function importThread(file: Blob | string): Promise<ThreadSummary> {
  return (await request<ThreadResponse>("/api/threads/import", { method: "POST", body: file })).thread;
}

export interface ApprovalDecision {
  approved: boolean;
  /** Why, for the agent to read; blank is none. At most 500 characters. */
  reason?: string;
}

/**
 * The user's decision on a tool call that waits for it. Once every call of its
 * reply is decided, the reply goes on through GET /api/threads/:id/stream. A
 * call decided already (here, in another tab, or settled by a new message)
 * rejects with the AppError conflict:already_decided, whose message says how.
 */
export function decideApproval(threadId: string, approvalId: string, { approved, reason }: ApprovalDecision): Promise<ApprovalDecisionResponse> {
  const why = reason?.trim();
  const timeZone = pageTimeZone();
  return request<ApprovalDecisionResponse>(`${threadPath(threadId)}/approvals/${encodeURIComponent(approvalId)}`, {
    method: "POST",
    body: JSON.stringify({ approved, ...(why ? { reason: why } : {}), ...(timeZone ? { timeZone } : {}) }),
  });
}

/** Where the thread's export downloads from (an attachment). */
export function exportUrl(threadId: string, format: "json" | "markdown"): string {
  return `${threadPath(threadId)}/export?format=${format}`;
}

/** A share link to the thread's active branch as it is now. */
export async function createShare(threadId: string, body: ShareRequest): Promise<SharedLink> {
  return (await request<ShareResponse>(`${threadPath(threadId)}/shares`, { method: "POST", body: JSON.stringify(body) })).share;
}

/** The caller's share links that are not revoked, newest first. */
export async function listShares(): Promise<SharedLink[]> {
  return (await request<SharesResponse>("/api/shares")).shares;
}

export function revokeShare(shareId: string): Promise<void> {
  return request<void>(`/api/shares/${encodeURIComponent(shareId)}`, { method: "DELETE" });
}

/** "Continue this conversation": the link's snapshot as a new thread of the caller's; its id. */
export async function continueShare(shareId: string): Promise<string> {
  return (await request<{ thread: { id: string } }>(`/api/shares/${encodeURIComponent(shareId)}/continue`, { method: "POST" })).thread.id;
}

const memoryPath = (id: string) => `/api/memory/${encodeURIComponent(id)}`;

/** The caller's memories, newest first; with `q`, those sharing a word with it, best match first. And whether their memory is on. */
export function listMemories(q = "", { signal }: { signal?: AbortSignal } = {}): Promise<MemoriesResponse> {
  const query = q.trim() ? `?${new URLSearchParams({ q: q.trim() })}` : "";
  return request<MemoriesResponse>(`/api/memory${query}`, { signal });
}

/** A memory added by hand; `evicted` names what the count bound pushed out to make room. */
export function addMemory(text: string): Promise<MemoryResponse> {
  return request<MemoryResponse>("/api/memory", { method: "POST", body: JSON.stringify({ text }) });
}

export async function editMemory(id: string, text: string): Promise<MemoryResponse["memory"]> {
  return (await request<MemoryResponse>(memoryPath(id), { method: "PATCH", body: JSON.stringify({ text }) })).memory;
}

/** For good: the message it came from will not teach it again. */
export function deleteMemory(id: string): Promise<void> {
  return request<void>(memoryPath(id), { method: "DELETE" });
}

/** The caller's memory on or off; answers with what stands. */
export async function setMemoryEnabled(enabled: boolean): Promise<boolean> {
  return (await request<MemorySettingsResponse>("/api/memory/settings", { method: "PUT", body: JSON.stringify({ enabled }) })).enabled;
}

/** Where the caller's memories download from (an attachment). */
export const MEMORY_EXPORT_URL = "/api/memory/export";

/** Memories from an export file, sent as it is (the server checks it): all of them or, past the count bound, none. */
export function importMemories(file: Blob | string | MemoryFile): Promise<MemoryImportResponse> {
  const body = typeof file === "string" || file instanceof Blob ? file : JSON.stringify(file);
  return request<MemoryImportResponse>("/api/memory/import", { method: "POST", body });
}
