import type { UIMessageChunk } from "ai";
import { dataChunk, type HistorySource } from "@/lib/protocol/chat";
import type { JsonValue, NoticePart, Part, ToolResultPart } from "@threadline/history/parts";
import { canonicalParts } from "@threadline/history/codec";
import { UI_METADATA_KEY } from "@/lib/protocol/parts-codec";

/**
 * Where a turn's output goes; the runtime decides how it reaches the client.
 * `step` names the durable step that published the chunk, so that a runtime
 * which retries steps can withdraw what a failed attempt wrote.
 */
export type Publish = (chunk: UIMessageChunk, origin?: { step: string }) => void | Promise<void>;

/** The sub-agent call the parts a writer streams run inside (packages/history/src/parts.ts). */
export type InsideCall = { parentCallId: string; rootCallId: string };

/** The chunks of the UI message stream that a reply's parts stream as, published from one step. */
export class ChunkWriter {
  /** The same for every chunk of the step: one object, not one per token. */
  private readonly origin: { step: string };
  /** Our provider metadata on each part this writer starts: the call they run inside, for the page to nest them. */
  private readonly meta: { providerMetadata?: { [UI_METADATA_KEY]: { parentCallId: string; rootCallId: string } } };

  constructor(
    private readonly publish: Publish,
    step: string,
    private readonly inside?: InsideCall,
  ) {
    this.origin = { step };
    this.meta = inside ? { providerMetadata: { [UI_METADATA_KEY]: { ...inside } } } : {};
  }

  /** The publish's own result: nothing when it took the chunk at once, else the promise to wait for. */
  private send(chunk: UIMessageChunk): void | Promise<void> {
    return this.publish(chunk, this.origin);
  }

  startStep = () => this.send({ type: "start-step" });
  finishStep = () => this.send({ type: "finish-step" });

  /** The agent that writes the parts after this one; a retried step's replaces it (same id). */
  agent = (name: string, id: string) => this.send(dataChunk("agent", { name }, id));
  handoff = (to: string, reason: string | undefined, id: string) =>
    this.send(dataChunk("handoff", { to, ...(reason ? { reason } : {}) }, id));
  /** The person's budget ended the reply here: what they are told, kept in the message. */
  budget = (notice: NoticePart, id: string) => this.send(dataChunk("budget", { text: notice.text, ...(notice.resetsAt ? { resetsAt: notice.resetsAt } : {}) }, id));

  textStart = (id: string) => this.send({ type: "text-start", id, ...this.meta });
  textDelta = (id: string, delta: string) => this.send({ type: "text-delta", id, delta });
  textEnd = (id: string) => this.send({ type: "text-end", id });

  reasoningStart = (id: string) => this.send({ type: "reasoning-start", id, ...this.meta });
  reasoningDelta = (id: string, delta: string) => this.send({ type: "reasoning-delta", id, delta });
  reasoningEnd = (id: string, durationMs: number) =>
    this.send({ type: "reasoning-end", id, providerMetadata: { [UI_METADATA_KEY]: { durationMs, ...this.inside } } });

  toolInputStart = (toolCallId: string, toolName: string) =>
    this.send({ type: "tool-input-start", toolCallId, toolName, dynamic: true, ...this.meta });
  toolInputDelta = (toolCallId: string, inputTextDelta: string) => this.send({ type: "tool-input-delta", toolCallId, inputTextDelta });
  toolInputAvailable = (toolCallId: string, toolName: string, input: JsonValue) =>
    this.send({ type: "tool-input-available", toolCallId, toolName, input, dynamic: true, ...this.meta });
  toolOutput = (toolCallId: string, output: JsonValue) => this.send({ type: "tool-output-available", toolCallId, output, dynamic: true });
  toolError = (toolCallId: string, errorText: string) => this.send({ type: "tool-output-error", toolCallId, errorText, dynamic: true });
  /** The call waits for the user's approval: the AI SDK's own chunk, which puts the tool part in "approval-requested". */
  approvalRequest = (toolCallId: string, approvalId: string) => this.send({ type: "tool-approval-request", approvalId, toolCallId });
  /** How the user decided, then the result: the approved call's output (or error), or the AI SDK's own denial. */
  async approvedResult(result: ToolResultPart & { approval: NonNullable<ToolResultPart["approval"]> }): Promise<void> {
    const { approval } = result;
    await this.send(dataChunk("approval", { toolCallId: result.toolCallId, ...approval }));
    if (approval.outcome !== "approved") await this.send({ type: "tool-output-denied", toolCallId: result.toolCallId });
    else if (result.error !== undefined) await this.toolError(result.toolCallId, result.error);
    else await this.toolOutput(result.toolCallId, result.output ?? null);
  }
}

export const threadChunk = (threadId: string, historySource: HistorySource): UIMessageChunk =>
  dataChunk("thread", { threadId, historySource });

/** The server's signatures for messages it stored, for the client to send back with its copy. */
/** The server's signatures, with each message's place (its seq, and its parent where the store keeps them). */
export const signaturesChunk = (signatures: { id: string; signature: string; seq: number; parentId?: string | null }[]): UIMessageChunk =>
  dataChunk("signatures", { signatures });

export const stoppedChunk: UIMessageChunk = dataChunk("status", { status: "stopped" });

/** A stored reply's parts, streamed again as one step of the chunks that wrote them (all at once). */
export async function replayReply(publish: Publish, parts: Part[], newId: () => string): Promise<void> {
  const writer = new ChunkWriter(publish, "replay");
  await writer.startStep();
  await replayParts(writer, parts, newId);
  await writer.finishStep();
}

async function replayParts(writer: ChunkWriter, parts: Part[], newId: () => string): Promise<void> {
  let agent: string | undefined;
  for (const part of canonicalParts(parts)) {
    if ("agentName" in part && part.agentName !== undefined && part.agentName !== agent) {
      agent = part.agentName;
      await writer.agent(agent, newId());
    }
    switch (part.type) {
      case "text": {
        const id = newId();
        await writer.textStart(id);
        await writer.textDelta(id, part.text);
        await writer.textEnd(id);
        break;
      }
      case "reasoning": {
        const id = newId();
        await writer.reasoningStart(id);
        await writer.reasoningDelta(id, part.text);
        await writer.reasoningEnd(id, part.durationMs ?? 0);
        break;
      }
      case "tool-call":
        await writer.toolInputAvailable(part.toolCallId, part.toolName, part.input);
        if (part.approval) await writer.approvalRequest(part.toolCallId, part.approval.id);
        break;
      case "tool-result":
        if (part.approval) await writer.approvedResult({ ...part, approval: part.approval });
        else if (part.error !== undefined) await writer.toolError(part.toolCallId, part.error);
        else await writer.toolOutput(part.toolCallId, part.output ?? null);
        break;
      case "handoff":
        await writer.handoff(part.to, part.reason, newId());
        break;
      case "notice":
        await writer.budget(part, newId());
        break;
      case "system-event":
        break;
    }
  }
}
