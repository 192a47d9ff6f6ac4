import type { ThreadMessage } from "@threadline/history/contract";
import { filesOf, type FilePart } from "@threadline/history/parts";
import { applyHistoryPolicy, type HistoryPolicy } from "@/lib/protocol/history-policy";
import type { FileInput } from "@/lib/protocol/parts-codec";
import type { Network } from "../network/network";

/**
 * The files a turn's models read: those of the messages inside some agent's
 * window of `conversation` (each agent's history policy), each file once.
 * A file only older messages carry is never read for the turn: its bytes
 * would go nowhere.
 */
export function filesInWindow(conversation: ThreadMessage[], policies: HistoryPolicy[]): FilePart[] {
  const files = new Map<string, FilePart>();
  for (const policy of policies) {
    for (const message of applyHistoryPolicy(conversation, policy)) {
      for (const file of filesOf(message)) if (!files.has(file.fileId)) files.set(file.fileId, file);
    }
  }
  return [...files.values()];
}

/**
 * What the files the models read become for them (their contents, read once
 * a turn, outside any step: a file's bytes never become a step's output);
 * undefined when they read none, or the network reads none.
 */
export async function fileInputFor(
  network: Pick<Network, "fileInput" | "modelId">,
  owner: string,
  conversation: ThreadMessage[],
  policies: HistoryPolicy[],
): Promise<FileInput | undefined> {
  const files = filesInWindow(conversation, policies);
  if (files.length === 0 || !network.fileInput) return undefined;
  return network.fileInput(owner, files, network.modelId);
}
