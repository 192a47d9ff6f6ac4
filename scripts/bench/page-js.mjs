// The JavaScript a browser fetches for a thread's page with messages: the page
// opened in Chromium, every script it requests counted until none has been
// requested for a while (scripts loaded after the first paint included: a lazy
// chunk costs the reader as much as one the HTML names), and beside it the
// old figure, the scripts the HTML of `/` names.
import { randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import { chromium } from "@playwright/test";
import { CHROMIUM_ARGS, systemChromium } from "../browser.mjs";
import { timedTurn, visitor } from "./turns.mjs";

/** How long no script may have been requested before the page counts as loaded. */
const QUIET_MS = 2_000;
/** The most the page may take to settle, once loaded. */
const SETTLE_LIMIT_MS = 30_000;

const gzippedBytes = (body) => gzipSync(body, { level: 9 }).byteLength;
const kb = (bytes) => Number((bytes / 1024).toFixed(1));

/**
 * Threads of a few messages seeded over HTTP, each page opened in Chromium:
 * `thread` (a plain reply and a markdown one: the figure), `plainThread`
 * (plain prose only), each `{ files, gzippedKB, scripts }` (`scripts`: each
 * one's path and gzipped KB), and `html` `{ files, gzippedKB }`.
 */
export async function chatPageJs(app) {
  const cookie = await visitor(app);
  const thread = await seedThread(app, cookie, ["[[bench]] a thread to read", "[[markdown]] and some formatting"]);
  const plainThread = await seedThread(app, cookie, ["Hello, what can you do?", "Tell me more, please."]);
  return {
    thread: await scriptsFetched(app, `/c/${thread}`, cookie),
    plainThread: await scriptsFetched(app, `/c/${plainThread}`, cookie),
    html: await scriptsNamed(app, "/", cookie),
  };
}

/** A thread of `messages`, each answered; its id. */
async function seedThread(app, cookie, messages) {
  let threadId;
  for (const content of messages) {
    const turn = await timedTurn(app, cookie, { ...(threadId ? { threadId } : {}), message: { id: randomUUID(), content } });
    if (turn.error) throw new Error(`seeding a thread: ${turn.error}`);
    threadId = turn.threadId;
  }
  return threadId;
}

/** Every script the page at `path` makes the browser fetch, each counted once. */
export async function scriptsFetched(app, path, cookie) {
  const browser = await chromium.launch({ executablePath: systemChromium(), args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext();
    await context.addCookies(cookie.split("; ").map((pair) => {
      const at = pair.indexOf("=");
      return { name: pair.slice(0, at), value: pair.slice(at + 1), url: app };
    }));
    const page = await context.newPage();
    const pending = new Set();
    const bodies = new Map();
    let lastRequest = Date.now();
    page.on("request", (request) => {
      if (request.resourceType() !== "script") return;
      pending.add(request);
      lastRequest = Date.now();
    });
    page.on("requestfinished", async (request) => {
      if (!pending.has(request)) return;
      const response = await request.response();
      const body = response ? await response.body().catch(() => undefined) : undefined;
      if (body) bodies.set(new URL(request.url()).pathname, gzippedBytes(body));
      pending.delete(request);
    });
    page.on("requestfailed", (request) => pending.delete(request));
    const response = await page.goto(new URL(path, app).toString(), { waitUntil: "load" });
    if (!response?.ok()) throw new Error(`GET ${path}: ${response?.status()}`);
    const settleBy = Date.now() + SETTLE_LIMIT_MS;
    while (pending.size > 0 || Date.now() - lastRequest < QUIET_MS) {
      if (Date.now() > settleBy) throw new Error(`${path}: scripts still loading after ${SETTLE_LIMIT_MS} ms`);
      await page.waitForTimeout(100);
    }
    const scripts = [...bodies].map(([src, bytes]) => ({ src, gzippedKB: kb(bytes) })).sort((a, b) => b.gzippedKB - a.gzippedKB);
    const total = [...bodies.values()].reduce((sum, bytes) => sum + bytes, 0);
    return { files: scripts.length, gzippedKB: kb(total), scripts };
  } finally {
    await browser.close();
  }
}

/** The scripts the HTML of `path` names, as the bench counted them first. */
export async function scriptsNamed(app, path, cookie) {
  const html = await (await fetch(new URL(path, app), { headers: { cookie } })).text();
  // A noModule script (the legacy polyfills) is fetched only by browsers without modules, none of which runs this page.
  const tags = [...html.matchAll(/<script[^>]+src="([^"]+\.js[^"]*)"[^>]*>/g)].filter((m) => !/\snoModule\b/i.test(m[0]));
  const sources = [...new Set(tags.map((m) => m[1]))];
  let total = 0;
  for (const src of sources) total += gzippedBytes(Buffer.from(await (await fetch(new URL(src, app))).arrayBuffer()));
  return { files: sources.length, gzippedKB: kb(total) };
}
