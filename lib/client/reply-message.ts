// A reply as the page draws it, built from the UI message stream's chunks as
// they arrive. It reads the chunks this app's server writes (text, reasoning,
// dynamic tool calls and their results, data parts, steps, the start and the
// finish) into the same message the AI SDK's client builds from them, without
// loading that client or the schemas it checks each chunk with. Every change
// makes a new message object and replaces only the part that changed, so a
// memoised part that did not change is not drawn again.
import { Allow, parse as parsePartialJson } from "partial-json";
import type { DynamicToolUIPart, UIMessageChunk } from "ai";
import type { ChatMessage } from "@/lib/protocol/chat";
import type { DataPart } from "@/lib/client/messages";
import { decidedPart } from "@/lib/client/approval-parts";

type UIPart = ChatMessage["parts"][number];
type ToolState = DynamicToolUIPart["state"];
type ProviderMetadata = Record<string, Record<string, unknown>>;

/** What one chunk did to the reply: nothing to draw, a change, or a change that is not yet streaming (the reply named). */
export type ReplyChange = "none" | "changed" | "named";

/** A chunk the reply cannot take: a delta with no start, a result of a call it never saw. */
export class ReplyStreamError extends Error {}

interface ToolUpdate {
  toolCallId: string;
  toolName: string;
  state: ToolState;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  rawInput?: string;
  title?: string;
  providerExecuted?: boolean;
  preliminary?: boolean;
  providerMetadata?: ProviderMetadata;
}

export class ReplyMessage {
  message: ChatMessage;
  finishReason: string | undefined;
  private readonly text = new Map<string, number>();
  private readonly reasoning = new Map<string, number>();
  private readonly toolInputs = new Map<string, { text: string; toolName: string; title?: string }>();
  private started = false;

  /** `resetOnNewId`: a resumed reply starts over when the stream names another message. */
  constructor(
    id: string,
    private readonly resetOnNewId = false,
  ) {
    this.message = emptyReply(id);
  }

  /** Takes one chunk in; data parts also go to `onData`. An `error` chunk throws its text. */
  apply(chunk: UIMessageChunk, onData?: (part: DataPart) => void): ReplyChange {
    switch (chunk.type) {
      case "start":
        return this.start(chunk.messageId, chunk.messageMetadata);
      case "start-step":
        this.setParts([...this.message.parts, { type: "step-start" }]);
        return "none";
      case "finish-step":
        this.text.clear();
        this.reasoning.clear();
        return "none";
      case "text-start":
        return this.startText(this.text, chunk.id, { type: "text", text: "", providerMetadata: chunk.providerMetadata, state: "streaming" });
      case "text-delta":
        return this.growText(this.text, chunk.type, chunk.id, chunk.delta, chunk.providerMetadata);
      case "text-end":
        return this.endText(this.text, chunk.type, chunk.id, chunk.providerMetadata);
      case "reasoning-start":
        return this.startText(this.reasoning, chunk.id, {
          type: "reasoning",
          id: chunk.id,
          text: "",
          providerMetadata: chunk.providerMetadata,
          state: "streaming",
        } as UIPart);
      case "reasoning-delta":
        return this.growText(this.reasoning, chunk.type, chunk.id, chunk.delta, chunk.providerMetadata);
      case "reasoning-end":
        return this.endText(this.reasoning, chunk.type, chunk.id, chunk.providerMetadata);
      case "tool-input-start":
        this.toolInputs.set(chunk.toolCallId, { text: "", toolName: chunk.toolName, title: chunk.title });
        this.updateTool(this.inStep(chunk.toolCallId), {
          toolCallId: chunk.toolCallId,
          toolName: chunk.toolName,
          state: "input-streaming",
          input: undefined,
          providerExecuted: chunk.providerExecuted,
          title: chunk.title,
          providerMetadata: chunk.providerMetadata,
        });
        return "changed";
      case "tool-input-delta": {
        const partial = this.toolInputs.get(chunk.toolCallId);
        if (!partial) throw new ReplyStreamError(`tool-input-delta for a call that never started (${chunk.toolCallId})`);
        partial.text += chunk.inputTextDelta;
        this.updateTool(this.inStep(chunk.toolCallId), {
          toolCallId: chunk.toolCallId,
          toolName: partial.toolName,
          state: "input-streaming",
          input: inputSoFar(partial.text),
          rawInput: partial.text,
          title: partial.title,
        });
        return "changed";
      }
      case "tool-input-available":
        this.updateTool(this.inStep(chunk.toolCallId), {
          toolCallId: chunk.toolCallId,
          toolName: chunk.toolName,
          state: "input-available",
          input: chunk.input,
          providerExecuted: chunk.providerExecuted,
          providerMetadata: chunk.providerMetadata,
          title: chunk.title,
        });
        return "changed";
      case "tool-output-available":
      case "tool-output-error": {
        const at = this.anywhere(chunk.toolCallId);
        const call = this.message.parts[at] as DynamicToolUIPart;
        this.updateTool(at, {
          toolCallId: chunk.toolCallId,
          toolName: call.toolName,
          input: call.input,
          title: call.title,
          providerExecuted: chunk.providerExecuted,
          providerMetadata: chunk.providerMetadata,
          ...(chunk.type === "tool-output-available"
            ? { state: "output-available", output: chunk.output, preliminary: chunk.preliminary }
            : { state: "output-error", errorText: chunk.errorText }),
        });
        return "changed";
      }
      case "tool-approval-request": {
        // The call waits for the user's approval, as the AI SDK's reader marks it.
        const at = this.anywhere(chunk.toolCallId);
        this.replacePart(at, { ...this.message.parts[at], state: "approval-requested", approval: { id: chunk.approvalId } } as UIPart);
        return "changed";
      }
      case "tool-output-denied": {
        const at = this.anywhere(chunk.toolCallId);
        this.replacePart(at, { ...this.message.parts[at], state: "output-denied" } as UIPart);
        return "changed";
      }
      case "finish":
        if (chunk.finishReason != null) this.finishReason = chunk.finishReason;
        return this.mergeMetadata(chunk.messageMetadata) ? "changed" : "none";
      case "message-metadata":
        return this.mergeMetadata(chunk.messageMetadata) ? "changed" : "none";
      case "error":
        throw new Error(chunk.errorText);
      default:
        if (chunk.type.startsWith("data-")) return this.data(chunk as DataPart & { transient?: boolean }, onData);
        // Files and sources: this app's server writes none of them.
        return "none";
    }
  }

  private start(messageId: string | undefined, metadata: unknown): ReplyChange {
    const reset = this.resetOnNewId && this.started && messageId != null && messageId !== this.message.id;
    this.started = true;
    if (reset) {
      this.message = emptyReply(messageId);
      this.text.clear();
      this.reasoning.clear();
      this.toolInputs.clear();
      this.finishReason = undefined;
    }
    if (messageId != null) this.message = { ...this.message, id: messageId };
    const merged = this.mergeMetadata(metadata);
    return reset || messageId != null || merged ? "named" : "none";
  }

  /** A text or reasoning part opened: later deltas of `id` grow it. */
  private startText(open: Map<string, number>, id: string, part: UIPart): ReplyChange {
    open.set(id, this.message.parts.length);
    this.setParts([...this.message.parts, part]);
    return "changed";
  }

  private growText(open: Map<string, number>, type: string, id: string, delta: string, metadata: ProviderMetadata | undefined): ReplyChange {
    const at = open.get(id);
    if (at === undefined) throw new ReplyStreamError(`${type} for a part that never started (${id})`);
    const part = this.message.parts[at] as { text: string; providerMetadata?: ProviderMetadata };
    this.replacePart(at, { ...part, text: part.text + delta, providerMetadata: metadata ?? part.providerMetadata } as UIPart);
    return "changed";
  }

  private endText(open: Map<string, number>, type: string, id: string, metadata: ProviderMetadata | undefined): ReplyChange {
    const at = open.get(id);
    if (at === undefined) throw new ReplyStreamError(`${type} for a part that never started (${id})`);
    const part = this.message.parts[at] as { providerMetadata?: ProviderMetadata };
    this.replacePart(at, { ...part, state: "done", providerMetadata: metadata ?? part.providerMetadata } as UIPart);
    open.delete(id);
    return "changed";
  }

  private data(chunk: DataPart & { transient?: boolean }, onData?: (part: DataPart) => void): ReplyChange {
    if (chunk.type === "data-approval") return this.decided(chunk, onData);
    if (chunk.transient) {
      onData?.(chunk);
      return "none";
    }
    const at = chunk.id == null ? -1 : this.message.parts.findIndex((p) => p.type === chunk.type && "id" in p && p.id === chunk.id);
    if (at === -1) this.setParts([...this.message.parts, chunk as UIPart]);
    else this.replacePart(at, { ...this.message.parts[at], data: chunk.data } as UIPart);
    onData?.(chunk);
    return "changed";
  }

  /**
   * How the user decided on a call, sent just before its result: the call's
   * part takes the shape the stored reply gives it (the AI SDK's reader
   * skips this transient part, and its denial chunk carries no reason).
   */
  private decided(chunk: Extract<DataPart, { type: "data-approval" }>, onData?: (part: DataPart) => void): ReplyChange {
    onData?.(chunk);
    const at = this.message.parts.findLastIndex((p) => p.type === "dynamic-tool" && p.toolCallId === chunk.data.toolCallId);
    if (at === -1) throw new ReplyStreamError(`a decision on a call the reply does not hold (${chunk.data.toolCallId})`);
    this.replacePart(at, decidedPart(this.message.parts[at] as DynamicToolUIPart, chunk.data) as UIPart);
    return "changed";
  }

  /** Where the call sits among the current step's parts (-1: not there yet). */
  private inStep(toolCallId: string): number {
    const parts = this.message.parts;
    for (let i = parts.length - 1; i >= 0 && parts[i].type !== "step-start"; i--) {
      const part = parts[i];
      if (part.type === "dynamic-tool" && part.toolCallId === toolCallId) return i;
    }
    return -1;
  }

  /** Where the call sits: in the current step, else the last one anywhere in the reply. */
  private anywhere(toolCallId: string): number {
    const inStep = this.inStep(toolCallId);
    if (inStep !== -1) return inStep;
    const at = this.message.parts.findLastIndex((p) => p.type === "dynamic-tool" && p.toolCallId === toolCallId);
    if (at === -1) throw new ReplyStreamError(`a tool result for a call the reply does not hold (${toolCallId})`);
    return at;
  }

  private updateTool(at: number, update: ToolUpdate): void {
    const { providerMetadata, ...fields } = update;
    const result = update.state === "output-available" || update.state === "output-error";
    if (at === -1) {
      this.setParts([
        ...this.message.parts,
        {
          type: "dynamic-tool",
          toolName: fields.toolName,
          toolCallId: fields.toolCallId,
          state: fields.state,
          input: fields.input,
          output: fields.output,
          errorText: fields.errorText,
          preliminary: fields.preliminary,
          providerExecuted: fields.providerExecuted,
          title: fields.title,
          ...(providerMetadata != null ? { [result ? "resultProviderMetadata" : "callProviderMetadata"]: providerMetadata } : {}),
        } as UIPart,
      ]);
      return;
    }
    const part = this.message.parts[at] as DynamicToolUIPart & Record<string, unknown>;
    const next: Record<string, unknown> = {
      ...part,
      state: fields.state,
      toolName: fields.toolName,
      input: fields.input,
      output: fields.output,
      errorText: fields.errorText,
      rawInput: fields.rawInput,
      preliminary: fields.preliminary,
      providerExecuted: fields.providerExecuted ?? part.providerExecuted,
    };
    if (fields.title !== undefined) next.title = fields.title;
    if (providerMetadata != null) next[result ? "resultProviderMetadata" : "callProviderMetadata"] = providerMetadata;
    this.replacePart(at, next as UIPart);
  }

  private mergeMetadata(metadata: unknown): boolean {
    if (metadata == null) return false;
    const current = this.message.metadata;
    this.message = { ...this.message, metadata: (current != null ? { ...current, ...(metadata as object) } : metadata) as ChatMessage["metadata"] };
    return true;
  }

  private replacePart(at: number, part: UIPart): void {
    const parts = this.message.parts.slice();
    parts[at] = part;
    this.setParts(parts);
  }

  private setParts(parts: UIPart[]): void {
    this.message = { ...this.message, parts };
  }
}

function emptyReply(id: string): ChatMessage {
  return { id, role: "assistant", metadata: undefined, parts: [] };
}

/** A tool call's arguments as far as they have come: the JSON so far, closed where it breaks off. */
function inputSoFar(text: string): unknown {
  try {
    return parsePartialJson(text, Allow.ALL);
  } catch {
    return undefined;
  }
}
