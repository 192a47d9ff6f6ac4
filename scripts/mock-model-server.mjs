// A local OpenAI-compatible model server. Tests point the app's real provider
// code (@ai-sdk/openai-compatible) at it, so requests and token streams cross a
// real HTTP connection and every reply is predictable.
//
// Markers in the last user message choose the behaviour:
//   [[slow]]      a long reply, 150 ms between chunks (Stop, streaming growth);
//                 [[slow:MS]] MS apart instead
//   [[markdown]]  bold, a list, a code block and raw HTML that must not run
//   [[error]]     HTTP 500 with an OpenAI-style error body
//   [[auth-error]] HTTP 401 whose message quotes a key hint, as OpenAI's does
//   [[fail-mid]]  a few words, then the socket is destroyed
//   [[hang-mid]]  a few words, then silence until the client hangs up
//   [[malformed-mid]] a few words, then a line that is not JSON, then the end
//   [[bad-chunk-mid]] a few words, then JSON of the wrong shape, then the end
//   [[flaky-mid]] the first request with this text breaks off like [[fail-mid]];
//                 every later one gets the ordinary echo (retries, durability)
//   [[nth]]       the ordinary echo, then " (answer N)": N counts this server's
//                 answers to this text, so a regenerated reply differs
//   [[once]]      the ordinary echo the first time; HTTP 500 every later time
//                 (a regenerate that fails)
//   [[call:NAME:JSON]] (one or more; JSON is the tool's input) when the request
//                 offers tools; without tools these markers are plain text:
//                 - tool results after the last user message: the text
//                   toolResultsReply([{ name, content }, ...]) for this turn
//                 - else, tools include hand_over but not every NAME: one call
//                   to hand_over, {"agent": <its first agent enum>, "reason": "needs tools"}
//                 - else one tool call per marker, in order, ids call_<n>_<i>
//                   (n counts this server's completions), arguments streamed
//                   in 2-3 pieces, finish_reason "tool_calls"
//   [[call-again]] with [[call:…]]: the calls again after their results,
//                 each round (a model that keeps asking for more)
//   [[hang-after-tools]] with [[call:…]]: after the results, silence until
//                 the client hangs up (a continuation whose model stalls)
//   [[same-call-id]] with [[call:…]]: every call under the id call_0, in every
//                 response (a provider that repeats its tool-call ids)
//   [[split-emoji]] SPLIT_EMOJI_REPLY in pieces of three UTF-16 code units, so
//                 some deltas end halfway through an emoji (a lone surrogate
//                 on the wire, as JSON escapes it)
//   [[long]]      LONG_REPLY: 40,000 characters, in pieces of 1,000
//   [[huge]]      HUGE_REPLY: 1.5 MB of distinct words, in pieces of 16,000
//                 (more text than a full-text vector may hold)
//   [[bench]]     the benchmark's model: BENCH_FIRST_TOKEN_MS to the first of
//                 BENCH_TOKENS tokens, then BENCH_TOKEN_GAP_MS between tokens
//   [[tokens:N]]  N tokens ("t0 t1 …"), MOCK_CHUNK_DELAY_MS apart: the token
//                 path's CPU per token (scripts/bench/token-cpu.mjs)
//   [[one-token]] ONE_TOKEN_REPLY, one token, at once: a turn whose cost is all
//                 the app's own setup (scripts/bench/one-token-turn.mjs)
//   [[reason]]    REASONING_TEXT streams as reasoning_content before the reply
//                 or the tool calls (also with [[slow]] or [[markdown]])
//   otherwise     an echo that counts the roles it received (history checks)
// A summary request (compaction's, marked by its headers: lib/model/request-kind.mjs)
// gets summaryReply of its transcript, whatever the transcript holds.
// A title request (marked the same way) gets titleReply of the user's message
// it quotes: the message itself, so a thread keeps the name its first words
// gave it, unless the message says otherwise:
//   [[title:TEXT]] TEXT is the title
//   [[title-error]] HTTP 500
//   [[title-empty]] an empty answer
//   [[title-slow]]  no answer until the client hangs up (its timeout)
//   [[title-held]]  the title, once the test calls releaseTitles() or POSTs to
//                   /__titles/release (a test can act while the title is on its way;
//                   releaseTitles(token) or ?token= releases only those asked with token)
//   [[bench]]       the message's first four words, BENCH_FIRST_TOKEN_MS after the request
// A memory request (lib/memory/learning.ts, marked the same way) gets the
// offline demo's answer (lib/model/memory-request.mjs: "I live in Lisbon"
// teaches "Lives in Lisbon"), unless the user's message of the exchange says:
//   [[memory:TEXT]]  TEXT is the one fact learned
//   [[memory-error]] HTTP 500
//   [[memory-held]]  the answer, once the test releases it as it releases a
//                    held title (releaseTitles, /__titles/release)
// `calls` counts the requests by kind (answer, title, summary, memory).
// The error markers win over the others; [[slow]] also paces tool calls (their
// arguments one character at a time).
import http from "node:http";
import { serveWhenRun } from "./standalone-server.mjs";
import { readBody } from "./read-body.mjs";
import { isMemoryRequest, isSummaryRequest, isTitleRequest } from "../lib/model/request-kind.mjs";
import { offlineMemoryAnswer, readMemoryRequest } from "../lib/model/memory-request.mjs";

const SLOW_CHUNK_DELAY_MS = 150;

export const SLOW_REPLY =
  "Streaming slowly on purpose: this reply arrives one word at a time so that a test can watch it grow, " +
  "press Stop halfway through, and then check that only the words which had already arrived were kept. " +
  "Nothing in it matters except its length, which is long enough to take several seconds at this pace, " +
  "giving every observer plenty of chances to see partial text.";

export const MARKDOWN_REPLY = [
  "Here is **bold text** and a list:",
  "",
  "- first item",
  "- second item",
  "",
  "```js",
  'console.log("fenced code");',
  "```",
  "",
  'Raw HTML that must stay inert: <script>window.__xss = 1</script> <img src=x onerror="window.__xss = 1">',
].join("\n");

/** What [[split-emoji]] streams, cut inside its emoji. */
export const SPLIT_EMOJI_REPLY = "Faces: 😀 and 🎉, a family 👩‍👩‍👧, a clef 𝄞 — done.";

/** The shape of a [[bench]] reply (npm run bench): a model that answers as a hosted one does. */
export const BENCH_FIRST_TOKEN_MS = 100;
export const BENCH_TOKENS = 100;
export const BENCH_TOKEN_GAP_MS = 10;
const BENCH_PIECES = Array.from({ length: BENCH_TOKENS }, (_, i) => `tok${i} `);

/** What [[one-token]] streams: a single token, with no pause before it. */
export const ONE_TOKEN_REPLY = "ok";

/** What [[long]] streams: longer than any message a user may send. */
export const LONG_REPLY = Array.from({ length: 4_000 }, (_, i) => `word${String(i).padStart(5, "0")} `).join("");

/**
 * What [[huge]] streams: about 1.5 MB of words that are all different (a long
 * generation), starting with HUGE_REPLY_FIRST_WORD.
 */
export const HUGE_REPLY_FIRST_WORD = "aardvarkhuge";
export const HUGE_REPLY = [HUGE_REPLY_FIRST_WORD, ...Array.from({ length: 250_000 }, (_, i) => lettersOf(i))].join(" ");

/** A word of letters only (the full-text parser splits digits from letters), different for every n. */
function lettersOf(n) {
  let word = "";
  for (let i = n + 26 ** 4; i > 0; i = Math.floor(i / 26)) word += String.fromCharCode(97 + (i % 26));
  return word;
}

const FAIL_MID_REPLY = "This reply will break off in the middle of a sentence because";

/** What [[reason]] streams as the model's reasoning, before its reply or tool calls. */
export const REASONING_TEXT = "Thinking about the question step by step.";

/** The reply once tool results came back: `Tool results: NAME → CONTENT; NAME → CONTENT`. */
export function toolResultsReply(results) {
  return `Tool results: ${results.map(({ name, content }) => `${name} → ${content}`).join("; ")}`;
}

const CALL_START = /\[\[call:([A-Za-z0-9_-]+):/g;

/**
 * The [[call:NAME:JSON]] markers in a text, in order, as { name, arguments }.
 * JSON may itself contain "]]": a marker ends at the first "]]" before which the
 * text parses as JSON, or at the first "]]" if none does (malformed arguments).
 */
export function callMarkers(text) {
  const calls = [];
  let from = 0;
  for (;;) {
    CALL_START.lastIndex = from;
    const start = CALL_START.exec(text);
    if (!start) return calls;
    const argsFrom = start.index + start[0].length;
    const firstEnd = text.indexOf("]]", argsFrom);
    if (firstEnd === -1) return calls; // unterminated: not a marker
    let end = firstEnd;
    while (end !== -1 && !parses(text.slice(argsFrom, end))) end = text.indexOf("]]", end + 1);
    if (end === -1) end = firstEnd;
    calls.push({ name: start[1], arguments: text.slice(argsFrom, end).trim() });
    from = end + 2;
  }
}

function parses(json) {
  try {
    JSON.parse(json);
    return true;
  } catch {
    return false;
  }
}

function functionNames(tools) {
  return Array.isArray(tools) ? tools.filter((t) => t?.type === "function").map((t) => t.function?.name) : [];
}

/** The results of tool calls after the last user message, as { name, content }, in order. */
function toolResultsOfTurn(messages) {
  const turn = messages.slice(messages.findLastIndex((m) => m?.role === "user") + 1);
  const results = [];
  turn.forEach((message, i) => {
    if (message?.role !== "tool") return;
    const call = turn
      .slice(0, i)
      .reverse()
      .filter((m) => m?.role === "assistant" && Array.isArray(m.tool_calls))
      .flatMap((m) => m.tool_calls)
      .find((c) => c?.id === message.tool_call_id);
    const content = typeof message.content === "string" ? message.content : messageText(message.content);
    results.push({ name: call?.function?.name ?? message.name ?? "unknown", content });
  });
  return results;
}

/** The plan for [[call:...]] markers when the request offers tools, else undefined. */
function planToolCalls(body, messages, text) {
  const markers = callMarkers(text);
  const tools = Array.isArray(body?.tools) ? body.tools : [];
  if (markers.length === 0 || tools.length === 0) return undefined;
  const results = toolResultsOfTurn(messages);
  if (results.length > 0) {
    // A model that never settles: after the results it stalls, or asks the same again.
    if (text.includes("[[hang-after-tools]]")) return { kind: "hang" };
    if (!text.includes("[[call-again]]")) return { kind: "reply", reply: toolResultsReply(results) };
  }
  const names = functionNames(tools);
  const handOver = tools.find((t) => t?.type === "function" && t.function?.name === "hand_over");
  if (handOver && !markers.every((m) => names.includes(m.name))) {
    const agent = handOver.function.parameters?.properties?.agent?.enum?.[0];
    return { kind: "tool-calls", calls: [{ name: "hand_over", arguments: JSON.stringify({ agent, reason: "needs tools" }) }] };
  }
  return { kind: "tool-calls", calls: markers, ...(text.includes("[[same-call-id]]") ? { sameId: true } : {}) };
}

/** The reply to an ordinary message: it says which history reached the model. */
export function echoReply(text, userCount, assistantCount) {
  return `You said: "${text}". I can see ${userCount} user message(s) and ${assistantCount} assistant message(s) in this conversation.`;
}

/** The text of a chat message's content, which may be a string or a list of parts. */
export function messageText(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part) => part?.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("");
}

/**
 * The summary of a compaction request: "Summary: " and the user's lines of
 * the transcript, each as `said <text>`, after the summary so far if there
 * was one; deterministic, so tests can tell which messages it stands for.
 */
export function summaryReply(requestText) {
  const [before, transcript = ""] = requestText.split("Messages to summarize:");
  const earlier = /Summary: (.*)/.exec(before)?.[1];
  const said = transcript
    .split("\n\n")
    .filter((block) => block.startsWith("User: "))
    .map((block) => `said ${block.slice("User: ".length).trim()}`);
  return `Summary: ${[...(earlier ? [earlier] : []), ...said].join("; ")}`;
}

/**
 * The title of a title request (its text: "User: <message>\n\nAssistant: <reply>"):
 * the [[title:TEXT]] marker's TEXT, else the user's message as it is.
 */
export function titleReply(requestText) {
  const message = /^User: ([\s\S]*?)(?:\n\nAssistant: [\s\S]*)?$/.exec(requestText)?.[1] ?? requestText;
  return /\[\[title:([^\]]*)\]\]/.exec(message)?.[1] ?? message;
}

/** The benchmark's title: the message's first words, without its markers. */
const benchTitle = (message) => message.replace(/\[\[[^\]]*\]\]/g, "").trim().split(/\s+/).slice(0, 4).join(" ") || "Bench thread";

/** What a title request gets: its markers, read in the user's message it quotes. */
function planTitle(text) {
  const message = /^User: ([\s\S]*?)(?:\n\nAssistant: |$)/.exec(text)?.[1] ?? text;
  if (message.includes("[[title-error]]")) return { kind: "error" };
  if (message.includes("[[title-slow]]")) return { kind: "hang" };
  if (message.includes("[[title-empty]]")) return { kind: "reply", reply: "" };
  // A hosted model's title call: a few words, after as long as its first token takes.
  if (message.includes("[[bench]]")) return { kind: "reply", reply: benchTitle(message), waitMs: BENCH_FIRST_TOKEN_MS };
  return { kind: "reply", reply: titleReply(text), ...(message.includes("[[title-held]]") ? { held: true } : {}) };
}

/** What a memory request gets: its markers, read in the user's message of the exchange it holds. */
function planMemory(text) {
  const user = String(readMemoryRequest(text)?.exchange?.user ?? "");
  if (user.includes("[[memory-error]]")) return { kind: "error" };
  const marked = /\[\[memory:([^\]]*)\]\]/.exec(user)?.[1];
  const reply = marked === undefined ? offlineMemoryAnswer(text) : JSON.stringify({ add: [marked], update: [], delete: [] });
  return { kind: "reply", reply, ...(user.includes("[[memory-held]]") ? { held: true } : {}) };
}

/** Decides what the model does for one request: its body, and its headers (which mark a summary request). */
export function planReply(body, { brokenBefore = () => true, answerNumber = () => 1, headers = {} } = {}) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const lastUser = messages.findLast((m) => m?.role === "user");
  const text = messageText(lastUser?.content);
  if (isSummaryRequest(headers)) return { kind: "reply", reply: summaryReply(text) };
  if (isTitleRequest(headers)) return planTitle(text);
  if (isMemoryRequest(headers)) return planMemory(text);
  if (text.includes("[[error]]")) return { kind: "error" };
  if (text.includes("[[auth-error]]")) return { kind: "auth-error" };
  if (text.includes("[[fail-mid]]")) return { kind: "fail-mid", reply: FAIL_MID_REPLY };
  for (const how of ["hang", "malformed", "bad-chunk"]) {
    if (text.includes(`[[${how}-mid]]`)) return { kind: "fail-mid", reply: FAIL_MID_REPLY, how };
  }
  if (text.includes("[[flaky-mid]]") && !brokenBefore(text)) return { kind: "fail-mid", reply: FAIL_MID_REPLY };
  if (text.includes("[[once]]") && answerNumber(text) > 1) return { kind: "error" };
  const reasoning = text.includes("[[reason]]") ? { reasoning: REASONING_TEXT } : {};
  const pace = /\[\[slow(?::(\d+))?\]\]/.exec(text);
  const slow = pace ? { delayMs: pace[1] ? Number(pace[1]) : SLOW_CHUNK_DELAY_MS } : {};
  const tools = planToolCalls(body, messages, text);
  if (tools) return { ...tools, ...slow, ...reasoning };
  if (pace) return { kind: "reply", reply: SLOW_REPLY, ...slow, ...reasoning };
  if (text.includes("[[markdown]]")) return { kind: "reply", reply: MARKDOWN_REPLY, ...reasoning };
  if (text.includes("[[bench]]")) {
    return { kind: "reply", reply: BENCH_PIECES.join(""), pieces: BENCH_PIECES, firstDelayMs: BENCH_FIRST_TOKEN_MS, delayMs: BENCH_TOKEN_GAP_MS };
  }
  const tokens = /\[\[tokens:(\d+)\]\]/.exec(text);
  if (tokens) {
    const pieces = Array.from({ length: Number(tokens[1]) }, (_, i) => `t${i} `);
    return { kind: "reply", reply: pieces.join(""), pieces };
  }
  if (text.includes("[[one-token]]")) return { kind: "reply", reply: ONE_TOKEN_REPLY, pieces: [ONE_TOKEN_REPLY], firstDelayMs: 0 };
  if (text.includes("[[long]]")) return { kind: "reply", reply: LONG_REPLY, pieces: LONG_REPLY.match(/[\s\S]{1,1000}/g), ...reasoning };
  if (text.includes("[[huge]]")) return { kind: "reply", reply: HUGE_REPLY, pieces: HUGE_REPLY.match(/[\s\S]{1,16000}/g) };
  if (text.includes("[[split-emoji]]")) {
    // No "u" flag: the pieces are code units, not characters.
    return { kind: "reply", reply: SPLIT_EMOJI_REPLY, pieces: SPLIT_EMOJI_REPLY.match(/[\s\S]{1,3}/g), ...reasoning };
  }
  const count = (role) => messages.filter((m) => m?.role === role).length;
  const nth = text.includes("[[nth]]") ? ` (answer ${answerNumber(text)})` : "";
  return { kind: "reply", reply: echoReply(text, count("user"), count("assistant")) + nth, ...reasoning };
}

/** A plan's tool calls with their wire ids: call_<n>_<index>, n the completion's number; all call_0 with `sameId`. */
function withIds(calls, n, sameId = false) {
  return calls.map((call, index) => ({ id: sameId ? "call_0" : `call_${n}_${index}`, type: "function", function: { name: call.name, arguments: call.arguments } }));
}

/**
 * A tool call's arguments in 2-3 pieces (fewer only if too short to split), as
 * OpenAI streams them; one character per piece when slow, so that a test can
 * press Stop while a call's input is still arriving.
 */
function argumentPieces(json, slow = false) {
  const chars = Array.from(json);
  if (slow) return chars;
  if (chars.length < 2) return [json];
  const count = chars.length >= 6 ? 3 : 2;
  const size = Math.ceil(chars.length / count);
  const pieces = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(""));
  return pieces;
}

/** Word-sized chunks that keep their whitespace, so joining them gives the reply back. */
export function chunksOf(reply) {
  return reply.split(/(?<=\s)(?=\S)/);
}

function sendJson(res, status, value) {
  const body = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

function sendModelError(res) {
  sendJson(res, 500, { error: { message: "mock model failure", type: "server_error" } });
}

/** The key hint an operator must never see reach a user. */
export const LEAKED_KEY_HINT = "sk-proj-Ab12…wXyZ";

function sendAuthError(res) {
  sendJson(res, 401, {
    error: { message: `Incorrect API key provided: ${LEAKED_KEY_HINT}. You can find your API key at https://platform.openai.com/account/api-keys.`, type: "invalid_request_error", code: "invalid_api_key" },
  });
}

// Resolves after `ms`, or at once when `signal` aborts, leaving no timer behind.
function pause(ms, signal) {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

/** Answers nothing until the client hangs up. */
function hangUntilClosed(res) {
  return new Promise((resolve) => res.on("close", resolve));
}

function usageFor(body, completionTokens, reasoningTokens = 0, reported) {
  const promptWords = (body.messages ?? []).map((m) => messageText(m?.content)).join(" ").split(/\s+/).filter(Boolean);
  const completion = completionTokens + reasoningTokens;
  reported?.list.push({ model: body.model, kind: reported.kind, inputTokens: promptWords.length, outputTokens: completion, reasoningTokens });
  return {
    prompt_tokens: promptWords.length,
    completion_tokens: completion,
    total_tokens: promptWords.length + completion,
    ...(reasoningTokens > 0 ? { completion_tokens_details: { reasoning_tokens: reasoningTokens } } : {}),
  };
}

async function streamReply(req, res, body, plan, { id, n, chunkDelayMs, reported }) {
  // The client hanging up (Stop, a closed tab) must end the loop and its timer.
  const hangUp = new AbortController();
  res.on("close", () => hangUp.abort());

  const model = body.model ?? "mock-model";
  const created = Math.floor(Date.now() / 1000);
  const event = (delta, extra = {}) =>
    `data: ${JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: extra.finish_reason ?? null }],
      ...(extra.usage ? { usage: extra.usage } : {}),
    })}\n\n`;

  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  res.write(event({ role: "assistant", content: plan.kind === "tool-calls" ? null : "" }));

  const delayMs = plan.delayMs ?? chunkDelayMs;
  let sentAny = false;
  // Writes one delta after the pause; false once the client has hung up.
  const send = async (delta) => {
    await pause(sentAny ? delayMs : (plan.firstDelayMs ?? delayMs), hangUp.signal);
    sentAny = true;
    if (hangUp.signal.aborted) return false;
    res.write(event(delta));
    return true;
  };

  const reasoning = plan.reasoning ? chunksOf(plan.reasoning) : [];
  for (const chunk of reasoning) {
    if (!(await send({ reasoning_content: chunk }))) return;
  }

  if (plan.kind === "tool-calls") {
    let pieces = 0;
    for (const [index, call] of withIds(plan.calls, n, plan.sameId).entries()) {
      const [first, ...rest] = argumentPieces(call.function.arguments, plan.delayMs !== undefined);
      const start = { index, id: call.id, type: "function", function: { name: call.function.name, arguments: first } };
      if (!(await send({ tool_calls: [start] }))) return;
      for (const piece of rest) {
        if (!(await send({ tool_calls: [{ index, function: { arguments: piece } }] }))) return;
      }
      pieces += 1 + rest.length;
    }
    res.write(event({}, { finish_reason: "tool_calls", usage: usageFor(body, pieces, reasoning.length, reported) }));
    res.end("data: [DONE]\n\n");
    return;
  }

  const chunks = plan.pieces ?? chunksOf(plan.reply);
  const sent = plan.kind === "fail-mid" ? chunks.slice(0, 4) : chunks;
  for (const chunk of sent) {
    if (!(await send({ content: chunk }))) return;
  }
  if (plan.kind === "fail-mid") {
    // One more pause lets the words already written reach the client first.
    await pause(delayMs, hangUp.signal);
    if (plan.how === "hang") {
      await new Promise((resolve) => (hangUp.signal.aborted ? resolve() : hangUp.signal.addEventListener("abort", resolve, { once: true })));
    } else if (plan.how === "malformed") {
      res.end('data: {"choices": [{"delta": {"content": "never\n\ndata: [DONE]\n\n');
    } else if (plan.how === "bad-chunk") {
      res.end('data: {"choices": "not a list"}\n\ndata: [DONE]\n\n');
    } else {
      req.socket.destroy();
    }
    return;
  }
  res.write(event({}, { finish_reason: "stop", usage: usageFor(body, chunks.length, reasoning.length, reported) }));
  res.end("data: [DONE]\n\n");
}

function completeReply(req, res, body, plan, { id, n, reported }) {
  if (plan.kind === "fail-mid") {
    req.socket.destroy();
    return;
  }
  const reasoning = plan.reasoning ? { reasoning_content: plan.reasoning } : {};
  const reasoningTokens = plan.reasoning ? chunksOf(plan.reasoning).length : 0;
  const toolCalls = plan.kind === "tool-calls" ? withIds(plan.calls, n, plan.sameId) : undefined;
  sendJson(res, 200, {
    id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? "mock-model",
    choices: [
      toolCalls
        ? { index: 0, message: { role: "assistant", content: null, ...reasoning, tool_calls: toolCalls }, finish_reason: "tool_calls" }
        : { index: 0, message: { role: "assistant", content: plan.reply, ...reasoning }, finish_reason: "stop" },
    ],
    usage: toolCalls
      ? usageFor(body, toolCalls.reduce((sum, call) => sum + argumentPieces(call.function.arguments).length, 0), reasoningTokens, reported)
      : usageFor(body, chunksOf(plan.reply).length, reasoningTokens, reported),
  });
}

export function startMockModelServer({ port = 0, host = "127.0.0.1" } = {}) {
  const requests = [];
  /** The usage each answer reported: { model, kind, inputTokens, outputTokens, reasoningTokens }. */
  const usages = [];
  const chunkDelayMs = Number(process.env.MOCK_CHUNK_DELAY_MS ?? 20);
  let completions = 0;
  // Requests by kind (a title, a summary, or an answer in a turn), for the benchmark.
  const calls = { answer: 0, title: 0, summary: 0, memory: 0 };
  // [[title-held]] requests waiting for releaseTitles(), each with its request's text.
  const held = new Map();
  // Those whose request holds `token`, or every one: a test releases its own, not a test's running beside it.
  const releaseTitles = (token) => {
    for (const [release, text] of held) {
      if (token && !text.includes(token)) continue;
      release();
      held.delete(release);
    }
  };
  // Texts whose first request [[flaky-mid]] already broke off.
  const brokenOnce = new Set();
  const brokenBefore = (text) => {
    if (brokenOnce.has(text)) return true;
    brokenOnce.add(text);
    return false;
  };
  // How often each [[nth]] text has been answered.
  const answers = new Map();
  const answerNumber = (text) => {
    answers.set(text, (answers.get(text) ?? 0) + 1);
    return answers.get(text);
  };

  const server = http.createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://mock").pathname;
    try {
      if (path === "/__requests" && req.method === "GET") return sendJson(res, 200, requests);
      if (path === "/__requests" && req.method === "DELETE") {
        requests.length = 0; // in place: in-process callers hold this array
        usages.length = 0;
        return sendJson(res, 200, { cleared: true });
      }
      if (path === "/__titles/release" && req.method === "POST") {
        // An end-to-end test's releaseTitles(), over HTTP: ?token= releases only the titles asked with it.
        releaseTitles(new URL(req.url ?? "/", "http://mock").searchParams.get("token") ?? undefined);
        return sendJson(res, 200, { released: true });
      }
      if (path === "/v1/chat/completions" && req.method === "POST") {
        let body;
        try {
          body = JSON.parse(await readBody(req));
        } catch {
          return sendJson(res, 400, { error: { message: "request body is not JSON", type: "invalid_request_error" } });
        }
        requests.push(body);
        const kind = isTitleRequest(req.headers) ? "title" : isSummaryRequest(req.headers) ? "summary" : isMemoryRequest(req.headers) ? "memory" : "answer";
        calls[kind] += 1;
        const plan = planReply(body, { brokenBefore, answerNumber, headers: req.headers });
        if (plan.kind === "error") return sendModelError(res);
        if (plan.kind === "auth-error") return sendAuthError(res);
        if (plan.kind === "hang") return await hangUntilClosed(res);
        if (plan.held) await new Promise((resolve) => held.set(resolve, JSON.stringify(body)));
        if (plan.waitMs) await new Promise((resolve) => setTimeout(resolve, plan.waitMs));
        const n = ++completions;
        const id = `chatcmpl-mock-${n}`;
        // What this answer reports it spent, by kind of request: what a test checks the app's counts against.
        const reportedHere = { list: usages, kind };
        if (body.stream === true) return await streamReply(req, res, body, plan, { id, n, chunkDelayMs, reported: reportedHere });
        return completeReply(req, res, body, plan, { id, n, reported: reportedHere });
      }
      sendJson(res, 404, { error: { message: `no route for ${req.method} ${path}`, type: "not_found" } });
    } catch (error) {
      // A bug here must show up as a failed request, not a hung one.
      console.error("[mock-model]", error);
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error), type: "mock_bug" } });
      else res.destroy();
    }
  });

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const actualPort = server.address().port;
      resolve({
        url: `http://${host}:${actualPort}/v1`,
        port: actualPort,
        requests,
        usages,
        calls,
        releaseTitles,
        close: () =>
          new Promise((done) => {
            releaseTitles();
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

serveWhenRun(import.meta.url, async () => {
  const mock = await startMockModelServer({ port: Number(process.env.MOCK_MODEL_PORT ?? 4010) });
  console.log(`mock model server listening on ${mock.url}`);
  return mock;
});
