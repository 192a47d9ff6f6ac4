// Which model the page's picker starts from. A thread starts from the model its
// latest reply was written with; a new chat from the user's last choice in
// this browser. A model no longer on offer (its key removed) gives way to the
// default, and the page says so. Pure, but for the one key in localStorage.
import type { ModelOption } from "@/lib/protocol/models";

/** Where this browser keeps the user's last choice. */
export const LAST_MODEL_KEY = "threadline:model";

export interface ModelChoice {
  id: string;
  /** Why the choice is not the thread's own model: it is no longer offered. */
  notice?: string;
}

/** The default: the first on offer (the server lists it first and marks it). */
export const defaultModelOf = (models: ModelOption[]): ModelOption | undefined => models.find((m) => m.default) ?? models[0];

/** The label a model id is shown with: its own when on offer, else the id itself (a model since removed). */
export const modelLabel = (models: ModelOption[], id: string): string => models.find((m) => m.id === id)?.label ?? id;

/**
 * The picker's first value: the thread's model while it is on offer, else
 * (no thread model) the last choice when on offer, else the default. An empty
 * list (a misconfigured server) leaves nothing to pick.
 */
export function initialModel(models: ModelOption[], threadModel: string | null | undefined, lastChoice: string | null): ModelChoice | undefined {
  const fallback = defaultModelOf(models);
  if (!fallback) return undefined;
  const offered = (id: string | null | undefined): id is string => !!id && models.some((m) => m.id === id);
  if (threadModel) {
    if (offered(threadModel)) return { id: threadModel };
    return { id: fallback.id, notice: `${threadModel} is no longer offered here: replies now come from ${fallback.label}.` };
  }
  return { id: offered(lastChoice) ? lastChoice : fallback.id };
}

/** The last choice this browser kept, if it can read it. */
export function readLastChoice(): string | null {
  try {
    return window.localStorage.getItem(LAST_MODEL_KEY);
  } catch {
    return null; // storage refused (private mode, a policy): the default it is
  }
}

export function keepLastChoice(id: string): void {
  try {
    window.localStorage.setItem(LAST_MODEL_KEY, id);
  } catch {
    // not kept: the next new chat starts from the default
  }
}
