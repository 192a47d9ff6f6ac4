import "server-only";
import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { safeParseJSON } from "@ai-sdk/provider-utils";
import { InvalidToolInputError, NoSuchToolError, type LanguageModel, type ModelMessage, type ToolSet } from "ai";
import { convertToLanguageModelPrompt, prepareCallSettings, prepareRetries, prepareToolsAndToolChoice, standardizePrompt } from "ai/internal";
import { jsonDepth, MAX_JSON_DEPTH } from "@threadline/history/json-depth";

// One model call, asked of the provider directly. The AI SDK's streamText
// would pass every token through a dozen web streams of its own (steps,
// tool execution, telemetry, a tee for its promises) on its way from the
// provider's stream to ours; a turn needs none of that: it reads the
// provider's stream once. The request is shaped with the SDK's own functions
// (the prompt, the tools, the retries), as streamText shapes it, so the
// model is asked exactly the same (tests/unit/__golden__/*.requests.json).

export interface ProviderCall {
  model: LanguageModel;
  system: string;
  messages: ModelMessage[];
  tools?: ToolSet;
  abortSignal: AbortSignal;
  /** The SDK's retries of a request that fails before it streams (the SDK's default when undefined). */
  maxRetries?: number;
  /** The most the model may write (its reservation's); unset: as much as the provider allows. */
  maxOutputTokens?: number;
}

/** The provider's stream of the call's answer; a request that fails (after its retries) throws. */
export async function openProviderStream(call: ProviderCall): Promise<ReadableStream<LanguageModelV3StreamPart>> {
  const model = languageModelV3(call.model);
  const { abortSignal } = call;
  // The one system message among them is a compaction summary the server
  // wrote and read from its database (a client's copy never supplies one, and
  // an imported summary goes as a user message).
  const prompt = await standardizePrompt({ system: call.system, messages: call.messages, allowSystemInMessages: true });
  const { retry } = prepareRetries({ maxRetries: call.maxRetries, abortSignal });
  const messages = await convertToLanguageModelPrompt({ prompt, supportedUrls: await model.supportedUrls, download: undefined, abortSignal });
  const { tools, toolChoice } = await prepareToolsAndToolChoice({ tools: call.tools, toolChoice: undefined, activeTools: undefined });
  const { stream } = await retry(() =>
    model.doStream({
      ...prepareCallSettings({ maxOutputTokens: call.maxOutputTokens }),
      tools,
      toolChoice,
      responseFormat: { type: "text" },
      prompt: messages,
      abortSignal,
      includeRawChunks: false,
    }),
  );
  return stream;
}

function languageModelV3(model: LanguageModel): LanguageModelV3 {
  if (typeof model === "string" || model.specificationVersion !== "v3") {
    throw new Error(`The model must be a provider's language model object (specification v3), not ${typeof model === "string" ? `"${model}"` : model.specificationVersion}.`);
  }
  return model;
}

/** A call the model made in full, its input read and checked against the tool's schema. */
export interface ParsedToolCall {
  type: "tool-call";
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** The call cannot run: no such tool, or an input that does not fit; `error` says why. */
  invalid?: true;
  error?: unknown;
}

/**
 * The provider's tool call, its input parsed and checked as the SDK checks
 * it, with the SDK's own parser (prototype keys refused) and the same errors,
 * so the model reads the same words about a bad call. An invalid call keeps
 * its input as far as it parses (else the raw text). An input nested deeper
 * than MAX_JSON_DEPTH is invalid too, whatever the schema, and is kept as its
 * raw text: stored, exported or validated as JSON it would cost too much.
 */
export async function parseToolCall(call: { toolCallId: string; toolName: string; input: string }, tools: ToolSet | undefined): Promise<ParsedToolCall> {
  const { toolCallId, toolName, input: text } = call;
  const tool = tools?.[toolName];
  if (!tool) {
    const error = tools ? new NoSuchToolError({ toolName, availableTools: Object.keys(tools) }) : new NoSuchToolError({ toolName });
    return { type: "tool-call", toolCallId, toolName, input: await parsedOrText(text), invalid: true, error };
  }
  const source = text.trim() === "" ? "{}" : text;
  const read = await safeParseJSON({ text: source });
  if (read.success && jsonDepth(read.value) > MAX_JSON_DEPTH) {
    const cause = new Error(`The input nests objects and arrays more than ${MAX_JSON_DEPTH} deep; send a flatter input.`);
    return { type: "tool-call", toolCallId, toolName, input: text, invalid: true, error: new InvalidToolInputError({ toolName, toolInput: text, cause }) };
  }
  const checked = await safeParseJSON({ text: source, schema: tool.inputSchema });
  if (checked.success) return { type: "tool-call", toolCallId, toolName, input: checked.value };
  const error = new InvalidToolInputError({ toolName, toolInput: text, cause: checked.error });
  return { type: "tool-call", toolCallId, toolName, input: await parsedOrText(text), invalid: true, error };
}

async function parsedOrText(text: string): Promise<unknown> {
  const read = await safeParseJSON({ text });
  return read.success ? read.value : text;
}
