// Typed calls to the thread API. Every failure becomes an AppError whose message
// can be shown to the user as is.
import { AppError, fromErrorBody } from "@/lib/errors";
import type { ThreadSummary } from "@/lib/threads/repository";
import type { ThreadPage } from "@/lib/client/thread-list";

async function request<T>(path: string, init: RequestInit = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      ...init,
      cache: "no-store",
      // Every state-changing request says JSON: the server refuses one that does not (a cross-site form cannot).
      headers: init.method && init.method !== "GET" ? { "content-type": "application/json", ...init.headers } : init.headers,
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

/** Asks the server to end the thread's generation; it keeps the partial reply. */
export async function stopThreadGeneration(id: string): Promise<boolean> {
  const { stopped } = await request<{ stopped: boolean }>(`${threadPath(id)}/stop`, { method: "POST" });
  return stopped;
}
