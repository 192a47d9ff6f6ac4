import { expect, test, type Page } from "@playwright/test";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { composer, expectReplyFinished, lastReply, sendMessage, startThread, threadLink, uniqueToken } from "./helpers";

// Attacks from other origins, in a real browser: pages served by a second
// server on loopback. `localhost` is another site than the app's `127.0.0.1`;
// `127.0.0.1` on another port is the same site but another origin.
let attacker: Server;
let attackerPort: number;
const pages = new Map<string, string>();

test.beforeAll(async () => {
  attacker = createServer((req, res) => {
    const html = pages.get(req.url ?? "");
    res.writeHead(html ? 200 : 404, { "content-type": "text/html" });
    res.end(html ?? "not found");
  });
  await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
  attackerPort = (attacker.address() as AddressInfo).port;
});
test.afterAll(() => new Promise<void>((resolve) => attacker.close(() => resolve())));

/** Serves `html` at a new path of the attacker's server, reached as `host` (another site or another port). */
function attackPage(host: "localhost" | "127.0.0.1", html: string): string {
  const path = `/${uniqueToken()}`;
  pages.set(path, `<!doctype html><html><body>${html}</body></html>`);
  return `http://${host}:${attackerPort}${path}`;
}

async function threadTitles(page: Page): Promise<string[]> {
  const response = await page.request.get("/api/threads");
  return (await response.json()).threads.map((t: { title: string }) => t.title);
}

test("a cross-site form that posts to the app changes neither the visitor's identity nor their threads", async ({ page, context, baseURL }) => {
  await page.goto("/");
  const mine = `keep me ${uniqueToken()}`;
  await startThread(page, mine);
  const before = await context.cookies(baseURL);

  // text/plain sends "name=value": the form's one field rebuilds the JSON body around the "=".
  const payload = JSON.stringify({ message: { id: uniqueToken(), content: "written by another site" } });
  const url = attackPage(
    "localhost",
    `<form method="POST" action="${baseURL}/api/chat" enctype="text/plain"><input name='${payload.slice(0, -3)}' value='"}}'></form>
     <script>document.forms[0].submit()</script>`,
  );
  const refused = page.waitForResponse((r) => r.url() === `${baseURL}/api/chat`);
  await page.goto(url);
  expect((await refused).status()).toBe(403);

  expect(await context.cookies(baseURL)).toEqual(before);
  await page.goto("/");
  await expect(threadLink(page, mine)).toBeVisible();
  expect(await threadTitles(page)).toEqual([mine]);
});

test("a page on another port of the same host cannot post a message as the visitor", async ({ page, baseURL }) => {
  await page.goto("/");
  const mine = `only mine ${uniqueToken()}`;
  await startThread(page, mine);

  const body = JSON.stringify({ message: { id: uniqueToken(), content: "sent from another port" } });
  const url = attackPage(
    "127.0.0.1",
    // A Blob without a type sends no Content-Type at all.
    `<script>fetch(${JSON.stringify(`${baseURL}/api/chat`)}, { method: "POST", mode: "no-cors", credentials: "include", body: new Blob([${JSON.stringify(body)}]) })</script>`,
  );
  const refused = page.waitForResponse((r) => r.url() === `${baseURL}/api/chat`);
  await page.goto(url);
  expect((await refused).status()).toBe(403);

  await page.goto("/");
  expect(await threadTitles(page)).toEqual([mine]);
});

test("another site cannot show the app in a frame", async ({ page, baseURL }) => {
  const url = attackPage("localhost", `<iframe id="app" src="${baseURL}/" width="800" height="600"></iframe>`);
  const framed = page.waitForResponse((r) => r.url() === `${baseURL}/`);
  await page.goto(url);
  const response = await framed;
  expect(response.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
  const frame = page.frames().find((f) => f !== page.mainFrame());
  await expect.poll(() => frame?.url()).toMatch(/^chrome-error:/); // the browser put its error page in place of the app
  await expect(page.frameLocator("#app").getByRole("textbox", { name: "Message" })).toHaveCount(0);
});

test("the app works under its Content-Security-Policy without a single violation", async ({ page }) => {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content[- ]Security[- ]Policy/i.test(message.text())) violations.push(message.text());
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`Content-Security-Policy violation: ${event.violatedDirective} ${event.blockedURI}`);
    });
  });

  await page.goto("/");
  const threadId = await startThread(page, `policy check ${uniqueToken()}`);
  await sendMessage(page, "[[markdown]] show me");
  await expect(lastReply(page).locator("strong")).toHaveText("bold text");
  await expect(lastReply(page)).toContainText("first item");
  await expectReplyFinished(page);
  await page.reload();
  await expect(page).toHaveURL(`/c/${threadId}`);
  await expect(composer(page)).toBeEditable();

  expect(violations).toEqual([]);
});
