import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
// Node's own delay takes its abort listener off the signal when it ends: a
// listener left behind per word keeps the turn's signal, and what it reaches, alive.
import { setTimeout as sleep } from "node:timers/promises";
import { CALL_AGENT_TOOL, HANDOFF_TOOL } from "./handoff-tool";
import { arithmeticExpression, calculationPhrase } from "./offline-arithmetic";
import { isMemoryRequest, isSummaryRequest, isTitleRequest } from "./request-kind.mjs";
import { offlineMemoryAnswer } from "./memory-request.mjs";
import { offlineSummary } from "./summary-request";
import { offlineTitle } from "./offline-title";

// A model that needs no key and no network, so that a fresh install works end
// to end, tools and hand-overs included. It streams word by word with a small
// delay, the way a real model does, so streaming, Stop and persistence behave
// as they will in production. Its "thinking" is a few rules over the user's
// words: a question about the time somewhere, a calculation, or what the user
// said in another chat makes it use the tools it was given (or hand over to an
// agent that has them); after the tool results come back it answers from them.

const WORD_DELAY_MS = 35;

type ToolCall = { toolName: string; input: Record<string, unknown> };

function lastUserIndex(prompt: LanguageModelV3Prompt): number {
  return prompt.findLastIndex((message) => message.role === "user");
}

/** What the user wrote last: their message's text, which comes before any file it carries. */
function userText(prompt: LanguageModelV3Prompt): string {
  const message = prompt[lastUserIndex(prompt)];
  if (message?.role !== "user") return "";
  return message.content.find((part) => part.type === "text")?.text ?? "";
}

/** The line that names each file of the user's last message (lib/protocol/parts-codec.ts's fileLine): name, kind and size. */
const FILE_LINE = /^\[Attached file: (.+) \(([^()]+), ([^()]+)\)(?:: [^\]]*)?\]/;

/** The files the user's last message carries, as their lines name them. */
export function attachedFiles(prompt: LanguageModelV3Prompt): { name: string; kind: string; size: string }[] {
  const message = prompt[lastUserIndex(prompt)];
  if (message?.role !== "user") return [];
  return message.content.slice(1).flatMap((part) => {
    const line = part.type === "text" ? FILE_LINE.exec(part.text) : null;
    return line ? [{ name: line[1], kind: line[2], size: line[3] }] : [];
  });
}

export function offlineReply(prompt: LanguageModelV3Prompt): string {
  const turns = prompt.filter((m) => m.role === "user").length;
  const text = userText(prompt).trim();
  const quoted = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  const files = attachedFiles(prompt);
  return [
    `This is Threadline's **offline demo model**: no API key is configured, so no real model is answering.`,
    ``,
    `You wrote: "${quoted}"`,
    ``,
    ...(files.length > 0
      ? [
          `You attached ${files.length} file${files.length === 1 ? "" : "s"}:`,
          ...files.map((file) => `- **${file.name}** (${file.kind}, ${file.size})`),
          ``,
        ]
      : []),
    `This thread holds ${turns} message${turns === 1 ? "" : "s"} from you so far, so history is reaching the model.`,
    `Set \`OPENAI_API_KEY\`, \`ANTHROPIC_API_KEY\` or \`OPENAI_COMPATIBLE_BASE_URL\` to talk to a real one.`,
    `Ask it for the time somewhere, a calculation, or what you said about something in another chat to see its tools at work.`,
  ].join("\n");
}

const UNIT_MS: Record<string, number> = { second: 1_000, minute: 60_000, hour: 3_600_000, day: 86_400_000 };
const IN_TIME = String.raw`in (\d{1,4}|an?|one) (second|minute|hour|day)s?`;
const REMIND_IN_THEN_WHAT = new RegExp(String.raw`\bremind me ${IN_TIME} (?:to |that |about |of )?(.+?)[.!?]*$`, "i");
const REMIND_WHAT_THEN_IN = new RegExp(String.raw`\bremind me (?:to |that |about |of )?(.+?) ${IN_TIME}[.!?]*$`, "i");

/** "remind me in 2 minutes to stretch" (or "to stretch in 2 minutes"): what, and when, from `now`. */
export function plannedReminder(text: string, now: number): { at: string; text: string } | undefined {
  const first = REMIND_IN_THEN_WHAT.exec(text);
  const second = first ? undefined : REMIND_WHAT_THEN_IN.exec(text);
  const [count, unit, what] = first ? [first[1], first[2], first[3]] : second ? [second[2], second[3], second[1]] : [];
  if (!count || !unit || !what?.trim()) return undefined;
  const n = /^\d+$/.test(count) ? Number(count) : 1;
  return { at: new Date(now + n * UNIT_MS[unit.toLowerCase()]).toISOString(), text: what.trim().slice(0, 500) };
}

const AS_DOCUMENT = /\b(?:write|draft|make|create|put)\b(?:\s+(?:me|us))?\s+(?:a |an |the )?(?:(?:short|quick|brief|small|simple)\s+)?([\w'’ -]{1,40}?)\s+(?:as|in(?:to)?) a document\b/i;
const REVISE = /\b(?:revise|update|edit|change|shorten|extend|improve|add)\b[^.?!]*\b(?:document|plan|draft)\b/i;

/** "Write a short plan as a document": the document the offline model writes, a short one of that name. */
export function plannedDocument(text: string): { title: string; kind: "markdown"; content: string } | undefined {
  const what = AS_DOCUMENT.exec(text)?.[1]?.trim();
  if (!what) return undefined;
  const title = what.charAt(0).toUpperCase() + what.slice(1);
  const content = [`# ${title}`, "", "1. Say what done looks like.", "2. List the steps that get there.", "3. Take the first step today."].join("\n");
  return { title, kind: "markdown", content };
}

/** The id of the thread's latest document, as an earlier create_document result in the prompt names it. */
function latestDocumentId(prompt: LanguageModelV3Prompt): string | undefined {
  let id: string | undefined;
  for (const message of prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type !== "tool-result" || part.toolName !== "create_document" || part.output.type !== "json") continue;
      const documentId = (part.output.value as { documentId?: unknown } | null)?.documentId;
      if (typeof documentId === "string") id = documentId;
    }
  }
  return id;
}

/** The tool calls the user's words ask for, among the tools on offer. */
export function plannedToolCalls(text: string, tools: ReadonlySet<string>, now = Date.now(), prompt: LanguageModelV3Prompt = []): ToolCall[] {
  const calls: ToolCall[] = [];
  if (tools.has("create_document")) {
    const document = plannedDocument(text);
    if (document) return [{ toolName: "create_document", input: document }];
    // A revision starts from the latest version (the user may have edited it).
    const id = REVISE.test(text) ? latestDocumentId(prompt) : undefined;
    if (id && tools.has("read_document")) return [{ toolName: "read_document", input: { id } }];
  }
  if (tools.has("schedule_reminder")) {
    const reminder = plannedReminder(text, now);
    // A reminder's "in 2 minutes" is not a question about the time.
    if (reminder) return [{ toolName: "schedule_reminder", input: reminder }];
  }
  if (tools.has("current_time") && /\b(time|date|day|clock)\b/i.test(text)) {
    const place = /\b(?:time|date|day|clock)\b[^?!.;]*?\bin ((?:[A-Z][\w'’.-]*)(?:[ /_](?:[A-Z][\w'’.-]*))*)/.exec(text)?.[1];
    calls.push({ toolName: "current_time", input: { timeZone: place ?? "UTC" } });
  }
  if (tools.has("calculate")) {
    // Everyday phrasing ("17% of 230") in the calculator's notation; a phrase it cannot read is answered in words (plan).
    const phrase = calculationPhrase(text);
    const expression = phrase === null ? null : arithmeticExpression(phrase);
    if (expression !== null) calls.push({ toolName: "calculate", input: { expression } });
  }
  if (tools.has("search_threads")) {
    const query =
      /\b(?:about|regarding) ([\w'’ -]+?) in (?:my|an?|the)? ?(?:other|another|previous|earlier|last|older)? ?(?:chat|thread|conversation)s?\b/i.exec(text)?.[1] ??
      /\bdid I (?:say|mention|write|tell you|ask) about ([\w'’ -]+?)(?:[?.!]|$)/i.exec(text)?.[1];
    if (query) calls.push({ toolName: "search_threads", input: { query: query.trim() } });
  }
  return calls;
}

type ToolOutcome = { toolName: string; output?: unknown; error?: string };

/** The tool results after the user's last message, as the model received them. */
function toolResults(prompt: LanguageModelV3Prompt): ToolOutcome[] {
  const results: ToolOutcome[] = [];
  for (const message of prompt.slice(lastUserIndex(prompt) + 1)) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type !== "tool-result") continue;
      const { output } = part;
      if (output.type === "error-text" || output.type === "error-json") results.push({ toolName: part.toolName, error: String(output.value) });
      else if (output.type === "json" || output.type === "text") results.push({ toolName: part.toolName, output: output.value });
    }
  }
  return results;
}

function describeResult({ toolName, output, error }: ToolOutcome): string {
  if (error !== undefined) return `- \`${toolName}\` did not work: ${error}`;
  const value = output as Record<string, unknown>;
  switch (toolName) {
    case "current_time":
      return `- In ${value.place} it is **${value.local}** (UTC${value.utcOffset}).`;
    case "calculate":
      return `- ${value.expression} = **${value.result}**`;
    case CALL_AGENT_TOOL:
      return `- ${value.agent} (sub-agent) found:\n\n${String(value.result)
        .split("\n")
        .map((line) => `  > ${line}`)
        .join("\n")}`;
    case "schedule_reminder":
      return `- I will remind you to ${toSecondPerson(String(value.text))} on **${value.local}** (${value.timeZone}).`;
    case "create_document":
      return `- I wrote **${value.title}** (v${value.version}): its Open button shows it beside the conversation, where you can edit it too.`;
    case "update_document":
      return `- I revised **${value.title}** (v${value.version}).`;
    case "read_document":
      return `- **${value.title}** (v${value.version}) reads:\n\n${String(value.content).split("\n").map((line) => `  > ${line}`).join("\n")}`;
    case "search_threads": {
      const hits = (value.hits ?? []) as { title: string; snippet: string }[];
      if (hits.length === 0) return `- I found nothing about "${value.query}" in your other conversations.`;
      return hits
        .slice(0, 3)
        .map((hit) => `- In "${hit.title}": "…${hit.snippet}…"`)
        .join("\n");
    }
    default:
      return `- \`${toolName}\` returned ${JSON.stringify(output)}`;
  }
}

/** The user's first person and what it becomes when their words are said back to them. */
const SECOND_PERSON: Record<string, string> = {
  "i am": "you are",
  "am i": "are you",
  "i was": "you were",
  "was i": "were you",
  "i'm": "you're",
  "i've": "you've",
  "i'll": "you'll",
  "i'd": "you'd",
  i: "you",
  me: "you",
  my: "your",
  mine: "yours",
  myself: "yourself",
};

// Longest first, so "I am" is read before "I". "I" only as the capital a
// pronoun is written with (a lone "i" may be a variable), save in a
// contraction; a word joined to others ("I-95", "me-time") is not one.
const FIRST_PERSON = new RegExp(
  String.raw`(?<![\p{L}\p{N}_'’-])(?:I am|am I|Am I|I was|was I|Was I|[Ii]['’](?:m|ve|ll|d)|I|[Mm]yself|MYSELF|[Mm]ine|MINE|[Mm]y|MY|[Mm]e|ME)(?![\p{L}\p{N}_'’-])`,
  "gu",
);

/**
 * The user's words said back to them: their first person made the second
 * ("stretch my legs" → "stretch your legs", "I am late" → "you are late"),
 * in the case they wrote it ("My" → "Your"). "You" in their words is the
 * assistant; whether it would become "I" or "me" takes a grammar this demo
 * does not have, so it stays as it is.
 */
export function toSecondPerson(text: string): string {
  return text.replace(FIRST_PERSON, (words) => {
    const said = SECOND_PERSON[words.toLowerCase().replace("’", "'")];
    const apostrophe = words.includes("’") ? said.replace("'", "’") : said;
    if (words === words.toUpperCase() && words.length > 1 && !/^I\b/.test(words)) return apostrophe.toUpperCase();
    // "I" is a capital wherever it stands; only a word written with one at a sentence's start keeps it.
    return /^[A-Z]/.test(words) && !/^I\b|^I['’]/.test(words) ? apostrophe.charAt(0).toUpperCase() + apostrophe.slice(1) : apostrophe;
  });
}

type Plan =
  | { kind: "text"; reasoning?: string; text: string }
  | { kind: "tools"; reasoning: string; calls: ToolCall[] };

function plan(options: LanguageModelV3CallOptions): Plan {
  if (isSummaryRequest(options.headers)) return { kind: "text", text: offlineSummary(userText(options.prompt)) };
  if (isTitleRequest(options.headers)) return { kind: "text", text: offlineTitle(userText(options.prompt)) };
  if (isMemoryRequest(options.headers)) return { kind: "text", text: offlineMemoryAnswer(userText(options.prompt)) };
  const tools = new Set((options.tools ?? []).flatMap((tool) => (tool.type === "function" ? [tool.name] : [])));
  const results = toolResults(options.prompt);
  const read = results.find((r) => r.toolName === "read_document" && r.error === undefined);
  if (read && tools.has("update_document") && REVISE.test(userText(options.prompt)) && !results.some((r) => r.toolName === "update_document")) {
    const { documentId, content } = read.output as { documentId: string; content: string };
    const asked = userText(options.prompt).trim().slice(0, 200);
    return {
      kind: "tools",
      reasoning: "I read the latest version; now the revision, with what was asked added.",
      calls: [{ toolName: "update_document", input: { id: documentId, content: `${content}\n\n_Revised: ${asked}_` } }],
    };
  }
  if (results.length > 0) {
    return {
      kind: "text",
      // A revision's read is its first step, not news.
      text: `Here is what I found (offline demo model, real tools):\n\n${results
        .filter((r) => r.toolName !== "read_document" || !results.some((o) => o.toolName === "update_document"))
        .map(describeResult)
        .join("\n")}`,
    };
  }
  const text = userText(options.prompt);
  // "Ask the researcher …": a sub-agent's call, when the agent may make one; it answers from the result.
  const callAgent = (options.tools ?? []).find((tool) => tool.type === "function" && tool.name === CALL_AGENT_TOOL);
  const asked = /\b(?:ask|have|get) (?:the |your )?([A-Z][a-z]+)\b/i.exec(text)?.[1];
  if (callAgent?.type === "function" && asked) {
    const agents = (callAgent.inputSchema as { properties?: { agent?: { enum?: string[] } } }).properties?.agent?.enum ?? [];
    const agent = agents.find((name) => name.toLowerCase() === asked.toLowerCase());
    if (agent) return { kind: "tools", reasoning: `${agent} can find this out; I will write the answer from what it returns.`, calls: [{ toolName: CALL_AGENT_TOOL, input: { agent, task: text } }] };
  }
  const wanted = plannedToolCalls(text, new Set(["current_time", "calculate", "search_threads", "schedule_reminder", "create_document", "read_document"]), Date.now(), options.prompt);
  const handOver = (options.tools ?? []).find((tool) => tool.type === "function" && tool.name === HANDOFF_TOOL);
  if (wanted.length > 0 && handOver?.type === "function") {
    const agents = (handOver.inputSchema as { properties?: { agent?: { enum?: string[] } } }).properties?.agent?.enum ?? [];
    if (agents.length > 0) {
      return {
        kind: "tools",
        reasoning: `This needs tools (${wanted.map((c) => c.toolName).join(", ")}), which ${agents[0]} has.`,
        calls: [{ toolName: HANDOFF_TOOL, input: { agent: agents[0], reason: "needs tools" } }],
      };
    }
  }
  const calls = plannedToolCalls(text, tools, Date.now(), options.prompt);
  if (calls.length > 0) {
    return { kind: "tools", reasoning: `I will call ${calls.map((c) => c.toolName).join(" and ")}, then answer from the results.`, calls };
  }
  const unread = calculationPhrase(text);
  if (unread !== null && arithmeticExpression(unread) === null) return { kind: "text", text: unreadCalculation(unread) };
  return { kind: "text", text: offlineReply(options.prompt) };
}

/** What the demo says of a calculation it cannot read, instead of asking the calculator something it would refuse. */
export function unreadCalculation(phrase: string): string {
  const quoted = phrase.length > 120 ? `${phrase.slice(0, 120)}…` : phrase;
  return [
    `I could not read "${quoted}" as a calculation (this is Threadline's **offline demo model**, which understands only a few ways of asking).`,
    ``,
    `Try "17% of 230", "2 to the power of 10", "the square root of 144", "12 times 7" or "convert 5 miles to km", or set a model key to ask a real model.`,
  ].join("\n");
}

const words = (text: string) => text.split(/(?<=\s)/);
const usage = (output: number) => ({
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

const callId = () => `call_${crypto.randomUUID().replace(/-/g, "").slice(0, 24)}`;

export function createOfflineModel(modelId = "threadline-offline"): LanguageModelV3 {
  return {
    specificationVersion: "v3",
    provider: "threadline-offline",
    modelId,
    supportedUrls: {},
    async doGenerate(options) {
      const planned = plan(options);
      const content =
        planned.kind === "text"
          ? [{ type: "text" as const, text: planned.text }]
          : planned.calls.map((call) => ({
              type: "tool-call" as const,
              toolCallId: callId(),
              toolName: call.toolName,
              input: JSON.stringify(call.input),
            }));
      return {
        content,
        finishReason: planned.kind === "text" ? { unified: "stop", raw: "stop" } : { unified: "tool-calls", raw: "tool_calls" },
        usage: usage(0),
        warnings: [],
      };
    },
    async doStream(options) {
      const planned = plan(options);
      const signal = options.abortSignal;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async start(controller) {
          const send = (part: LanguageModelV3StreamPart) => controller.enqueue(part);
          let count = 0;
          const streamWords = async (text: string, emit: (delta: string) => void) => {
            for (const word of words(text)) {
              await sleep(WORD_DELAY_MS, undefined, { signal });
              emit(word);
              count++;
            }
          };
          send({ type: "stream-start", warnings: [] });
          try {
            const reasoning = planned.reasoning;
            if (reasoning) {
              send({ type: "reasoning-start", id: "offline-reasoning" });
              await streamWords(reasoning, (delta) => send({ type: "reasoning-delta", id: "offline-reasoning", delta }));
              send({ type: "reasoning-end", id: "offline-reasoning" });
            }
            if (planned.kind === "text") {
              send({ type: "text-start", id: "offline-text" });
              await streamWords(planned.text, (delta) => send({ type: "text-delta", id: "offline-text", delta }));
              send({ type: "text-end", id: "offline-text" });
            } else {
              for (const call of planned.calls) {
                const id = callId();
                const input = JSON.stringify(call.input);
                send({ type: "tool-input-start", id, toolName: call.toolName });
                await sleep(WORD_DELAY_MS, undefined, { signal });
                send({ type: "tool-input-delta", id, delta: input });
                send({ type: "tool-input-end", id });
                send({ type: "tool-call", toolCallId: id, toolName: call.toolName, input });
              }
            }
          } catch (error) {
            controller.error(error);
            return;
          }
          send({
            type: "finish",
            finishReason: planned.kind === "text" ? { unified: "stop", raw: "stop" } : { unified: "tool-calls", raw: "tool_calls" },
            usage: usage(count),
          });
          controller.close();
        },
      });
      return { stream };
    },
  };
}
