import "server-only";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { JsonValue } from "@threadline/history/parts";
import { defineTool, ToolUnavailableError, type AgentTool } from "@/lib/agent/network/tools/types";
import { runNow, type StepRunner } from "@/lib/agent/turn/steps";
import type { McpServerConfig } from "./mcp-config";
import { BRAND } from "@/lib/brand";
import type { McpServerStatus } from "@/lib/protocol/mcp";
import { boundedFetch, callScope, ResponseTooLarge } from "./bounded-fetch";
import { connectionOf, scrubberFor } from "./redact";

/** A tool's full name the providers accept: `<server>__<tool>`. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/**
 * A server whose tools list does not change (or that does not say so) is
 * listed again after this long. Servers that announce changes
 * (notifications/tools/list_changed) are listed again at once; for the rest
 * a tool added an hour ago is worth one list per ten minutes, not one per turn.
 */
const TOOLS_TTL_MS = 10 * 60_000;
/** However many changes a server announces, its tools are listed at most once a second. */
const MIN_RELIST_MS = 1_000;
/**
 * A server that failed is tried again after 1 s, then 2, 4 … up to 5
 * minutes: one that is down costs a connection attempt per backoff, never
 * one per turn, and one that is back is found within the backoff.
 */
const BACKOFF_FIRST_MS = 1_000;
const BACKOFF_MAX_MS = 5 * 60_000;
/**
 * The tools one server may bring, and all servers together: OpenAI takes at
 * most 128 tools in a request, and the agents have tools of their own. The
 * tools past the limit are left out, with a note.
 */
const MAX_TOOLS_PER_SERVER = 64;
const MAX_TOOLS = 100;
/** A tool's input schema, as JSON: one larger is left out (it would cost every model call its size in input). */
const MAX_SCHEMA_CHARS = 8_000;
/** A tool's description is cut here: it goes to the model on every call. */
const MAX_DESCRIPTION_CHARS = 1_000;
/** The most bytes one answer to anything but a tool call (initialize, a page of tools/list) may be: 64 tools at their largest fit. */
const LIST_MAX_BYTES = 1024 * 1024;
/** Pages of tools/list followed: enough for MAX_TOOLS_PER_SERVER at a handful of tools a page. */
const MAX_LIST_PAGES = 10;
/**
 * The bytes a result of at most `maxChars` characters may take on the wire:
 * each character at most 6 bytes as JSON (\u escapes), twice (a result may
 * carry its text and its structured content), plus the JSON-RPC and SSE
 * framing.
 */
const resultMaxBytes = (maxChars: number) => 12 * maxChars + 64 * 1024;

export interface McpOptions {
  /** How long one tool call may take. */
  callTimeoutMs: number;
  /**
   * How long each of connecting (Streamable HTTP), the SSE fallback and
   * listing the tools may take; and the most a turn waits for a server it
   * has not reached yet.
   */
  connectTimeoutMs: number;
  /** The most characters of a result the model is given; the read stops not far past it. */
  maxResultChars: number;
  log?: (line: string) => void;
}

/** One tool as a turn lists it: plain JSON, so a durable run keeps the list in a step and every replay sees the same one. */
export interface ListedTool {
  server: string;
  /** The server's own name for it. */
  name: string;
  description: string;
  inputSchema: JsonValue;
}

interface ServerState {
  config: McpServerConfig;
  /** Masks the server's secrets in every line said of it. */
  scrub: (text: string) => string;
  /** new: never tried; up: connected, its tools cached; down: failed, tried again at `retryAt`. */
  phase: "new" | "up" | "down";
  client?: Client;
  tools: ListedTool[];
  /** Why some of its tools were left out (up), or why it is down. */
  note?: string;
  /** The reason it last failed, to say so once rather than on every retry. */
  failure?: string;
  failures: number;
  listedAt: number;
  /** It announced that its tools changed. */
  stale: boolean;
  /** The connection or list under way: everyone who needs it then shares it. */
  attempt?: Promise<void>;
  timer?: NodeJS.Timeout;
  retryAt?: number;
}

/**
 * The operator's MCP servers (MCP_SERVERS), each connected with the
 * protocol's own SDK (Streamable HTTP, with SSE as the fallback) and its
 * tools kept: a turn takes the kept list and waits for no server, but for
 * one never reached yet, and for that at most the connect timeout. A server
 * that fails is left out of the turns and tried again in the background
 * after a backoff (1 s doubling to 5 minutes); one whose tools change says
 * so, or is listed again after ten minutes. Its tools reach the agents as
 * `<server>__<tool>`, every call asking the user first unless the server's
 * `autoApprove` names it. What is said of a server (status, log, errors) has
 * its URL's and headers' secrets masked.
 */
export class McpServers {
  private readonly servers: ServerState[];
  /** The agent tools last handed out, by server, name and what the list said of it: the same objects while a tool is listed the same. */
  private built = new Map<string, AgentTool>();
  /** The last list handed out, kept while it is the same: an agent built with it is built once. */
  private last: AgentTool[] = [];
  private closed = false;

  constructor(configs: McpServerConfig[], private readonly options: McpOptions) {
    this.servers = configs.map((config) => ({
      config,
      scrub: scrubberFor(config),
      phase: "new",
      tools: [],
      failures: 0,
      listedAt: 0,
      stale: false,
    }));
  }

  get configured(): boolean {
    return this.servers.length > 0;
  }

  /**
   * The tools for a turn: listed inside `step` (a durable run's memoized
   * step), so a replay of the turn offers the agents the same tools.
   */
  async tools(step: StepRunner = runNow): Promise<AgentTool[]> {
    const listed = await step("mcp-tools", () => this.listed());
    const tools = listed.map((tool) => this.agentTool(tool)).filter((tool): tool is AgentTool => tool !== undefined);
    const same = tools.length === this.last.length && tools.every((tool, i) => tool === this.last[i]);
    if (!same) this.last = tools;
    return this.last;
  }

  /**
   * The kept tools of every server that is up. A server never tried is
   * connected first, the turn waiting at most the connect timeout for it; a
   * list past its time is asked for again in the background.
   */
  async listed(): Promise<ListedTool[]> {
    const now = Date.now();
    const firsts: Promise<void>[] = [];
    for (const server of this.servers) {
      if (server.phase === "new") firsts.push(this.refresh(server));
      else if (server.phase === "up" && (server.stale || now - server.listedAt >= TOOLS_TTL_MS)) void this.refresh(server);
    }
    if (firsts.length > 0) await within(Promise.all(firsts), this.options.connectTimeoutMs).catch(() => {});
    const tools = this.servers.flatMap((server) => (server.phase === "up" ? server.tools : []));
    return tools.slice(0, MAX_TOOLS);
  }

  /**
   * The tool an approved call names that the turn's list did not have (its
   * server was down when the turn listed, or the list was from another
   * server). Undefined: no configured server has a tool of that name. A
   * server that cannot be reached now throws ToolUnavailableError: the
   * call's step fails, and the runtime tries it again later.
   */
  async unlistedTool(fullName: string): Promise<AgentTool | undefined> {
    const cut = fullName.indexOf("__");
    const server = cut > 0 ? this.servers.find((s) => s.config.name === fullName.slice(0, cut)) : undefined;
    if (!server) return undefined;
    await this.reach(server);
    const tool = server.tools.find((t) => `${server.config.name}__${t.name}` === fullName);
    return tool ? this.agentTool(tool) : undefined;
  }

  /**
   * Where each server stands, for the debug panel, which any visitor may
   * open: as kept, but that a server this process has never tried is
   * connected first (at most the connect timeout; once per process, as a
   * turn would). A view lists no server again, nor tries one that is down.
   */
  async statusForView(): Promise<McpServerStatus[]> {
    const firsts = this.servers.filter((server) => server.phase === "new").map((server) => this.refresh(server));
    if (firsts.length > 0) await within(Promise.all(firsts), this.options.connectTimeoutMs).catch(() => {});
    return this.status();
  }

  /** Where each server stands, as kept: never a request to any of them. */
  status(): McpServerStatus[] {
    return this.servers.map((server) => {
      const connected = server.phase === "up";
      const tools = connected ? server.tools.map((tool) => `${server.config.name}__${tool.name}`) : [];
      const note = server.phase === "new" ? (server.attempt ? "connecting" : "not connected yet") : server.note;
      return { name: server.config.name, connected, tools, ...(note ? { note } : {}) };
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const server of this.servers) clearTimeout(server.timer);
    await Promise.all(this.servers.map((server) => this.drop(server)));
  }

  /** A connection (and list) under way for `server`, or a new one; it ends up or down, never throws. */
  private refresh(server: ServerState): Promise<void> {
    clearTimeout(server.timer);
    server.timer = undefined;
    server.attempt ??= this.attemptNow(server).finally(() => (server.attempt = undefined));
    return server.attempt;
  }

  private async attemptNow(server: ServerState): Promise<void> {
    try {
      const kept = server.client;
      if (kept) {
        try {
          await this.list(server, kept);
          return this.up(server);
        } catch (error) {
          // A kept client may hold a session the server has since forgotten (it restarted): one new connection
          // before it counts as down. A server too slow, or too large, is not asked twice.
          if (isTimeout(error) || causeOf(error, ResponseTooLarge)) throw error;
          await this.drop(server);
        }
      }
      const client = await this.connect(server);
      if (this.closed) return void (await client.close().catch(() => {}));
      server.client = client;
      await this.list(server, client);
      this.up(server);
    } catch (error) {
      await this.down(server, error);
    }
  }

  /** Its tools, a page at a time, within the connect timeout altogether; cut to the limits, with a note of what was cut. */
  private async list(server: ServerState, client: Client): Promise<void> {
    const name = server.config.name;
    const deadline = Date.now() + this.options.connectTimeoutMs;
    const tools: ListedTool[] = [];
    const left: string[] = [];
    let cursor: string | undefined;
    let more = false;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const timeout = Math.max(1, deadline - Date.now());
      const listed = await within(client.listTools(cursor ? { cursor } : undefined, { timeout }), timeout, "listing its tools");
      for (const tool of listed.tools) {
        if (tools.length >= MAX_TOOLS_PER_SERVER) {
          more = true;
          break;
        }
        const schema = JSON.stringify(tool.inputSchema ?? {});
        if (!TOOL_NAME.test(`${name}__${tool.name}`) || schema.length > MAX_SCHEMA_CHARS) {
          left.push(tool.name.slice(0, 64));
          continue;
        }
        const description = (tool.description ?? tool.name).slice(0, MAX_DESCRIPTION_CHARS);
        tools.push({ server: name, name: tool.name, description, inputSchema: JSON.parse(schema) as JsonValue });
      }
      cursor = listed.nextCursor;
      if (!cursor || more) break;
      more = page === MAX_LIST_PAGES - 1;
    }
    const notes = [
      ...(left.length > 0 ? [`left out (a name a provider would refuse, or an input schema over ${MAX_SCHEMA_CHARS.toLocaleString("en-US")} characters): ${left.slice(0, 10).join(", ")}${left.length > 10 ? ` and ${left.length - 10} more` : ""}`] : []),
      ...(more ? [`only its first ${tools.length} tools are offered`] : []),
    ];
    server.tools = tools;
    server.note = notes.length > 0 ? server.scrub(notes.join("; ")) : undefined;
    server.listedAt = Date.now();
    server.stale = false;
  }

  private up(server: ServerState): void {
    const was = server.phase;
    server.phase = "up";
    server.failures = 0;
    server.failure = undefined;
    server.retryAt = undefined;
    if (was !== "up") {
      const count = server.tools.length;
      this.log(server, `${server.config.name} connected: ${count} tool${count === 1 ? "" : "s"}${server.note ? ` (${server.note})` : ""}`);
    }
  }

  /** Marks it down: its tools left out of the turns, tried again after the backoff. */
  private async down(server: ServerState, error: unknown): Promise<void> {
    await this.drop(server);
    server.tools = [];
    server.phase = "down";
    server.failures++;
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.min(server.failures - 1, 20));
    server.retryAt = Date.now() + delay;
    const large = causeOf(error, ResponseTooLarge);
    const why = large ? `its answer was too large: ${large.message}` : reason(error);
    const failure = server.scrub(why);
    server.note = `unavailable: ${failure}; tried again in ${Math.ceil(delay / 1000)} s`;
    // Said when it goes, or when the reason changes: not on every retry while it stays away.
    if (server.failure !== failure) this.log(server, `${server.config.name} is unavailable: ${failure}; its tools are left out until it answers again`);
    server.failure = failure;
    if (this.closed) return;
    server.timer = setTimeout(() => void this.refresh(server), delay);
    // The retry never keeps a process alive that is otherwise done.
    server.timer.unref();
  }

  /** Closes its client, if any: a client closed here is not a lost connection. */
  private async drop(server: ServerState): Promise<void> {
    const client = server.client;
    server.client = undefined;
    await client?.close().catch(() => {});
  }

  /** Its connection was lost (the server restarted, or a call found it gone): connected again in the background, its tools kept meanwhile. */
  private lost(server: ServerState, client: Client): void {
    if (server.client !== client || this.closed) return;
    server.client = undefined;
    void client.close().catch(() => {});
    void this.refresh(server);
  }

  /** It announced that its tools changed: listed again, at most once a second. */
  private changed(server: ServerState): void {
    server.stale = true;
    if (server.timer || server.attempt || this.closed) return;
    server.timer = setTimeout(() => void this.refresh(server), Math.max(0, server.listedAt + MIN_RELIST_MS - Date.now()));
    server.timer.unref();
  }

  /** Up, with a client: within the connect timeout when it must connect first; ToolUnavailableError when it cannot. */
  private async reach(server: ServerState): Promise<Client> {
    if (server.phase === "up" && server.client) return server.client;
    const backedOff = server.phase === "down" && server.retryAt !== undefined && Date.now() < server.retryAt;
    if (!backedOff || server.attempt) await within(this.refresh(server), this.options.connectTimeoutMs).catch(() => {});
    if (server.phase === "up" && server.client) return server.client;
    const why = server.failure ?? (server.attempt ? "it did not answer in time" : "it is not connected");
    throw new ToolUnavailableError(`The MCP server "${server.config.name}" is unavailable (${why}); try again later.`);
  }

  private async connect(server: ServerState): Promise<Client> {
    const { config, scrub } = server;
    const { url, headers } = connectionOf(config);
    const requestInit = { headers };
    const resultBytes = resultMaxBytes(this.options.maxResultChars);
    const limits = {
      forMethod: (method: string | undefined) => (method === "tools/call" ? resultBytes : LIST_MAX_BYTES),
      perEvent: Math.max(resultBytes, LIST_MAX_BYTES),
      // An event of the session's stream cut mid-way may have been a result: the session is no longer sound.
      onStreamOverflow: () => {
        if (server.client) this.lost(server, server.client);
      },
    };
    const fetch = boundedFetch(limits);
    const timeout = this.options.connectTimeoutMs;
    const attempt = async (transport: Transport, what: string) => {
      const client = new Client({ name: BRAND.name, version: "1" });
      // The SDK reports a transport's troubles here too (a stream that dropped): a call's own error says what matters to it.
      client.onerror = (error) => {
        if (transport instanceof SSEClientTransport && server.client === client && /^SSE error/.test(error.message)) this.lost(server, client);
      };
      client.onclose = () => this.lost(server, client);
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        if (server.client === client) this.changed(server);
      });
      try {
        // The SSE transport's start (its stream's first event) has no timeout of its own: both bounded here.
        await within(client.connect(transport, { timeout }), timeout);
        return client;
      } catch (error) {
        await client.close().catch(() => {});
        // Said scrubbed, with no cause that would say it again unscrubbed; but for a cut answer, which down() names.
        const large = causeOf(error, ResponseTooLarge);
        throw new Error(scrub(`connecting (${what}): ${reason(error)}`), large ? { cause: large } : {});
      }
    };
    // The SSE transport opens its stream with this fetch too (its EventSource takes the transport's).
    const sse = () => attempt(new SSEClientTransport(url, { requestInit, fetch }), "SSE");
    if (config.transport === "sse") return sse();
    try {
      return await attempt(new StreamableHTTPClientTransport(url, { requestInit, fetch }), "Streamable HTTP");
    } catch (streamable) {
      // An older server speaks only SSE; if that fails too, both reasons are told (either may be the one that matters).
      try {
        return await sse();
      } catch (fallback) {
        const large = causeOf(streamable, ResponseTooLarge) ?? causeOf(fallback, ResponseTooLarge);
        throw new Error(`${line(streamable)}; ${line(fallback)}`, large ? { cause: large } : {});
      }
    }
  }

  /** The agents' tool for a listed one: the same object while it is listed the same, so a turn's agent is built once per list. */
  private agentTool(listed: ListedTool): AgentTool | undefined {
    const server = this.servers.find((s) => s.config.name === listed.server);
    if (!server) return undefined;
    const key = JSON.stringify([listed.server, listed.name, listed.description, listed.inputSchema]);
    let tool = this.built.get(key);
    if (!tool) {
      tool = this.newTool(server, listed);
      // Only the tools of the lists in use are kept: one entry per tool a server has listed since it changed.
      if (this.built.size > MAX_TOOLS * 4) this.built = new Map();
      this.built.set(key, tool);
    }
    return tool;
  }

  private newTool(server: ServerState, listed: ListedTool): AgentTool {
    const { callTimeoutMs, maxResultChars } = this.options;
    const { name: serverName, autoApprove } = server.config;
    return defineTool({
      name: `${serverName}__${listed.name}`,
      description: `${listed.description} (a tool of the MCP server "${serverName}")`,
      input: inputSchemaOf(listed.inputSchema),
      needsApproval: !autoApprove.includes(listed.name),
      execute: async (input, context) => {
        const client = await this.reach(server);
        // The call's own controller: cut when its answer passes the limit (bounded-fetch), aborted when the call's signal is.
        const own = new AbortController();
        let cut: ResponseTooLarge | undefined;
        const follow = () => own.abort(context.signal?.reason);
        if (context.signal?.aborted) follow();
        else context.signal?.addEventListener("abort", follow, { once: true });
        let result;
        try {
          // An approved call's key rides in the request's _meta: a server that keys its change by it changes nothing twice after a crash.
          const meta = context.idempotencyKey ? { _meta: { "threadline/idempotencyKey": context.idempotencyKey } } : {};
          const scope = { abort: (error: Error) => own.abort((cut = error as ResponseTooLarge)) };
          result = await callScope.run(scope, () =>
            client.callTool({ name: listed.name, arguments: input as Record<string, unknown>, ...meta }, undefined, { timeout: callTimeoutMs, signal: own.signal }),
          );
        } catch (error) {
          const large = cut ?? (error instanceof ResponseTooLarge ? error : causeOf(error, ResponseTooLarge));
          if (large) {
            throw new Error(
              `The MCP server "${serverName}" sent a result too large to read: ${large.message} (the most a result may be is ${maxResultChars.toLocaleString("en-US")} characters). Ask it for less.`,
            );
          }
          if (isTimeout(error)) throw new Error(`The MCP server "${serverName}" did not answer within ${Math.round(callTimeoutMs / 1000)} s.`);
          if (unreachable(error)) {
            // Found gone: connected again in the background, or marked down.
            this.lost(server, client);
            throw new ToolUnavailableError(server.scrub(`The MCP server "${serverName}" is unavailable: ${reason(error)}`));
          }
          throw new Error(server.scrub(`The MCP server "${serverName}" failed: ${reason(error)}`));
        } finally {
          context.signal?.removeEventListener("abort", follow);
        }
        const text = resultText(result.content);
        if (result.isError) throw new Error(server.scrub(capped(text || "the tool reported an error", maxResultChars)));
        const structured = result.structuredContent as JsonValue | undefined;
        if (structured !== undefined && JSON.stringify(structured).length <= maxResultChars) return structured;
        return capped(text, maxResultChars);
      },
    });
  }

  private log(server: ServerState, line: string): void {
    this.options.log?.(`[mcp] ${server.scrub(line)}`);
  }
}

/** `work`, or a rejection saying it timed out after `ms` (the work goes on; what started it closes what it holds). */
function within<T>(work: Promise<T>, ms: number, what?: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what ? `${what} ` : ""}timed out after ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * A tool's JSON Schema as the zod schema the agents' tools are checked with
 * (zod's own converter); one it cannot convert takes any object, and the
 * server checks it.
 */
function inputSchemaOf(schema: unknown): z.ZodType {
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return z.record(z.string(), z.unknown());
  }
}

/** A result's content as text: its text parts, and a line for anything else (an image, a resource). */
function resultText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((item: { type?: string; text?: string; uri?: string; resource?: { uri?: string; text?: string } }) => {
      if (item.type === "text") return item.text ?? "";
      if (item.type === "resource") return item.resource?.text ?? `[resource ${item.resource?.uri ?? ""}]`;
      if (item.type === "resource_link") return `[resource ${item.uri ?? ""}]`;
      return `[${item.type ?? "content"} left out]`;
    })
    .join("\n");
}

/** At most `max` characters, with a note of what was cut. */
function capped(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[cut: the result was ${text.length.toLocaleString("en-US")} characters; the first ${max.toLocaleString("en-US")} are shown]`;
}

/** An error's first line. */
const line = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split("\n")[0];

/** An error's first line, and its cause's (undici's "fetch failed" says why only there). */
function reason(error: unknown): string {
  const cause = error instanceof Error && error.cause !== undefined ? line(error.cause) : "";
  const text = line(error);
  return (cause && !text.includes(cause) ? `${text} (${cause})` : text).slice(0, 300);
}

function causeOf<T extends Error>(error: unknown, type: new (...args: never[]) => T): T | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (e instanceof type) return e;
  return undefined;
}

/** A request that ran out of time (the SDK's own timeout, or ours), as opposed to one refused or broken. */
const isTimeout = (error: unknown): boolean =>
  (error instanceof McpError && error.code === ErrorCode.RequestTimeout && /timed? ?out/i.test(error.message)) || /timed? ?out/i.test(reason(error));

/** Statuses of a session the server forgot (404) or of a server failing as a whole. */
const GONE = [404, 502, 503, 504];

/** The call never reached a working server: refused, reset, the connection closed, the session gone, the server failing as a whole. */
function unreachable(error: unknown): boolean {
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
  if (error instanceof StreamableHTTPError) return GONE.includes(error.code ?? 0);
  // The SSE transport's POST: its status only in its message.
  const posted = error instanceof Error ? /^Error POSTing to endpoint \(HTTP (\d+)\)/.exec(error.message) : null;
  if (posted) return GONE.includes(Number(posted[1]));
  return error instanceof TypeError && /fetch failed/i.test(error.message);
}
