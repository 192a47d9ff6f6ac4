import { expect, test, type BrowserContext, type Locator, type Page } from "@playwright/test";
import { expectNoSeriousViolations } from "./axe";
import { assistantMessages, expectReplyFinished, isChatPost, lastReply, sendMessage, startThread, threadAlert, threadsNav, userMessages } from "./helpers";

// Memory across conversations as a person meets it (docs/memory.md): the
// Memory page, where they add, find, reword and delete what their chats
// remember; a plain statement to a chat ("remember that I like tea") that
// becomes a memory leading back to the message it came from; a later thread's
// reply that says it used it ("Memory used"), live and after a reload; and a
// temporary chat, marked as one, that learns nothing. One visitor per
// project, in order: each test builds on what the one before left.

const memoryList = (page: Page) => page.getByRole("list", { name: "Your memories" });
const memoryRow = (page: Page, text: string | RegExp): Locator => memoryList(page).getByRole("listitem").filter({ hasText: text });

/** The person's memories as the server lists them. */
async function memories(page: Page): Promise<{ id: string; text: string; source: { threadId: string; messageId: string } | null }[]> {
  const response = await page.request.get("/api/memory");
  expect(response.status(), await response.text()).toBe(200);
  return ((await response.json()) as { memories: { id: string; text: string; source: { threadId: string; messageId: string } | null }[] }).memories;
}

/** Waits until a chat has learned a memory with these words (a durable step after the reply); answers with it. */
async function learned(page: Page, text: string) {
  // Asked again and again: a kept-alive connection the server closed as it was reused (ECONNRESET) is asked once more.
  const texts = () => memories(page).then((list) => list.map((m) => m.text), (error: Error) => (/ECONNRESET/.test(error.message) ? [] : Promise.reject(error)));
  await expect.poll(texts, { timeout: 30_000 }).toContain(text);
  return (await memories(page)).find((m) => m.text === text)!;
}

test.describe.serial("memory across conversations", () => {
  let context: BrowserContext;
  let page: Page;
  /** Where "remember that I like tea" was said: the thread and the user's message. */
  const teaSource = { threadId: "", messageId: "" };
  /** The later thread whose reply was given it. */
  let usedIn = "";

  test.beforeAll(async ({ browser }, testInfo) => {
    context = await browser.newContext({ baseURL: testInfo.project.use.baseURL });
    page = await context.newPage();
    await page.goto("/"); // the visitor's identity
  });

  test.afterAll(async () => {
    await context?.close();
  });

  test("the Memory page: added by hand, found, reworded in place, deleted after a confirm, memory turned off and on; it reads in both schemes", async () => {
    // AUTH_MODE=open has no account menu: the sidebar leads there.
    await page.getByRole("link", { name: "Memory", exact: true }).click();
    await expect(page).toHaveURL("/memory");
    await expect(page.getByRole("heading", { level: 1, name: "Memory" })).toBeVisible();
    await expect(page.getByText("You have no memories yet.")).toBeVisible();

    // Added by hand, through the form: the newest first, with where it came from and that it was never used.
    const add = page.getByRole("button", { name: "Add memory" });
    await add.click();
    const field = page.getByRole("textbox", { name: "New memory" });
    await expect(field).toBeFocused();
    await field.fill("Prefers metric units");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await expect(field).toBeHidden();
    await expect(add).toBeFocused();
    const metric = memoryRow(page, "Prefers metric units");
    await expect(metric).toContainText("Added by you");
    await expect(metric).toContainText("Never used yet");
    const added = await page.request.post("/api/memory", { data: { text: "Works on the Threadline project" } });
    expect(added.status(), await added.text()).toBe(201);
    await page.reload();
    await expect(memoryList(page).getByRole("listitem")).toHaveCount(2);
    await expect(memoryList(page).getByRole("listitem").first()).toContainText("Works on the Threadline project");

    // Found by its words.
    const search = page.getByRole("searchbox", { name: "Search memories" });
    await search.fill("metric");
    await expect(memoryList(page).getByRole("listitem")).toHaveCount(1);
    await expect(memoryRow(page, "Prefers metric units")).toBeVisible();
    await search.fill("zebra");
    await expect(page.getByText("No memories match “zebra”.")).toBeVisible();
    await search.fill("");
    await expect(memoryList(page).getByRole("listitem")).toHaveCount(2);

    // Reworded in place: Escape leaves it as it was, Save keeps the new words (a reload shows them).
    await metric.getByRole("button", { name: "Edit" }).click();
    const words = page.getByRole("textbox", { name: "Memory", exact: true });
    await expect(words).toHaveValue("Prefers metric units");
    await words.press("Escape");
    await expect(words).toBeHidden();
    await expect(metric.getByRole("button", { name: "Edit" })).toBeFocused();
    await metric.getByRole("button", { name: "Edit" }).click();
    await words.fill("Prefers metric units and Celsius");
    await page.getByRole("button", { name: "Save" }).click();
    const celsius = memoryRow(page, "Prefers metric units and Celsius");
    await expect(celsius.getByRole("button", { name: "Edit" })).toBeFocused();
    await page.reload();
    await expect(celsius).toBeVisible();

    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      await expectNoSeriousViolations(page, `the Memory page (${colorScheme} scheme)`);
    }
    await page.emulateMedia({ colorScheme: "light" });

    // Deleted after a confirm: Cancel keeps it, Delete takes it away for good.
    await celsius.getByRole("button", { name: "Delete" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete memory?" });
    await expect(dialog).toContainText("Prefers metric units and Celsius");
    await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
    await expectNoSeriousViolations(page, "the Delete memory dialog");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
    await celsius.getByRole("button", { name: "Delete" }).click();
    await dialog.getByRole("button", { name: "Delete" }).click();
    await expect(dialog).toBeHidden();
    await expect(celsius).toHaveCount(0);
    await page.reload();
    await expect(memoryList(page).getByRole("listitem")).toHaveCount(1);
    expect((await memories(page)).map((m) => m.text)).toEqual(["Works on the Threadline project"]);

    // Memory off for this person, kept so across a reload, then on again.
    const use = page.getByRole("switch", { name: "Use memory" });
    await expect(use).toBeChecked();
    await use.click();
    await expect(use).not.toBeChecked();
    await page.reload();
    await expect(use).not.toBeChecked();
    await expect(page.getByText("Off: replies are given no memories")).toBeVisible();
    await use.click();
    await expect(use).toBeChecked();
  });

  test("a memory too many makes room: the page says which memory went", async ({ browser }, testInfo) => {
    // A visitor of its own, whose memory (MEMORY_PER_IDENTITY, 500) one import fills: the oldest of them, unused, goes first.
    const full = await browser.newContext({ baseURL: testInfo.project.use.baseURL });
    const own = await full.newPage();
    await own.goto("/");
    const fillers = Array.from({ length: 499 }, (_, n) => ({ text: `Filler fact number ${n}` }));
    const imported = await own.request.post("/api/memory/import", {
      data: { version: 1, memories: [{ text: "Works on the Threadline project", createdAt: "2026-01-01T00:00:00.000Z" }, ...fillers] },
    });
    expect(imported.status(), await imported.text()).toBe(201);
    await own.goto("/memory");
    await own.getByRole("button", { name: "Add memory" }).click();
    await own.getByRole("textbox", { name: "New memory" }).fill("Keeps a cat called Miso");
    await own.getByRole("button", { name: "Add", exact: true }).click();
    await expect(own.getByRole("status").filter({ hasText: "Your memory was full" })).toContainText("“Works on the Threadline project”");
    await expect(memoryList(own).getByRole("listitem").first()).toContainText("Keeps a cat called Miso");
    await full.close();
    // Back to none for the visitor the tests share: the next ones start from what the chats teach.
    for (const memory of await memories(page)) expect((await page.request.delete(`/api/memory/${memory.id}`)).status()).toBe(204);
  });

  test("exported and imported: the file holds the memories, and brings them back", async () => {
    const added = await page.request.post("/api/memory", { data: { text: "Speaks Portuguese" } });
    expect(added.status(), await added.text()).toBe(201);
    await page.goto("/memory");
    const download = page.waitForEvent("download");
    await page.getByRole("link", { name: "Export", exact: true }).click();
    const file = await download;
    const exported = JSON.parse(await streamText(await file.createReadStream())) as { version: number; memories: { text: string }[] };
    expect(exported.version).toBe(1);
    expect(exported.memories.map((m) => m.text)).toEqual(["Speaks Portuguese"]);

    const [only] = await memories(page);
    expect((await page.request.delete(`/api/memory/${only.id}`)).status()).toBe(204);
    await page.reload();
    await expect(page.getByText("You have no memories yet.")).toBeVisible();
    const importFile = async () => {
      const chooser = page.waitForEvent("filechooser");
      await page.getByRole("button", { name: "Import", exact: true }).click();
      await (await chooser).setFiles({ name: "memories.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(exported)) });
    };
    await importFile();
    await expect(page.getByRole("status").filter({ hasText: "Imported 1 memory." })).toBeVisible();
    await expect(memoryRow(page, "Speaks Portuguese")).toBeVisible();
    // The same file again adds nothing twice, and says so.
    await importFile();
    await expect(page.getByRole("status").filter({ hasText: "Imported 0 memories. 1 memory was kept already." })).toBeVisible();
    await expect(memoryList(page).getByRole("listitem")).toHaveCount(1);
    for (const memory of await memories(page)) expect((await page.request.delete(`/api/memory/${memory.id}`)).status()).toBe(204);
  });

  test("a statement to a chat becomes a memory, leading back to the message it came from", async () => {
    await page.goto("/");
    const text = "remember that I like tea";
    teaSource.threadId = await startThread(page, text);
    const id = (await userMessages(page).first().getAttribute("id"))!.replace(/^message-/, "");
    teaSource.messageId = id;

    const tea = await learned(page, "Likes tea");
    expect(tea.source).toMatchObject(teaSource);
    await page.goto("/memory");
    const row = memoryRow(page, "Likes tea");
    const source = row.getByRole("link", { name: "your message" });
    await expect(source).toHaveAttribute("href", `/c/${teaSource.threadId}#message-${teaSource.messageId}`);
    await source.click();
    await expect(page).toHaveURL(`/c/${teaSource.threadId}#message-${teaSource.messageId}`);
    await expect(page.locator(`#message-${teaSource.messageId}`)).toHaveAttribute("data-found", "true");
  });

  test("a new thread's reply that was given it says Memory used, live and after a reload, and in the debug panel", async () => {
    await page.goto("/?debug=true");
    const threadId = await startThreadLoosely(page, "What should I drink this afternoon? Maybe tea?");
    usedIn = threadId;
    const used = lastReply(page).getByRole("button", { name: "Memory used" });
    await expect(used).toBeVisible();
    await expectMemoryUsed(lastReply(page), "Likes tea", teaSource);
    await expect(page.getByRole("list", { name: "Memories given to the last reply" })).toContainText("Likes tea");

    await page.reload();
    await expect(page).toHaveURL(`/c/${threadId}?debug=true`);
    await expectMemoryUsed(lastReply(page), "Likes tea", teaSource);
    await expect(page.getByRole("list", { name: "Memories given to the last reply" })).toContainText("Likes tea");
  });

  test("reworded and deleted on the Memory page; a reply that used it then says it was deleted", async () => {
    await page.goto("/memory");
    const row = memoryRow(page, "Likes tea");
    await row.getByRole("button", { name: "Edit" }).click();
    await page.getByRole("textbox", { name: "Memory", exact: true }).fill("Likes green tea");
    await page.getByRole("button", { name: "Save" }).click();
    const green = memoryRow(page, "Likes green tea");
    await expect(green).toBeVisible();
    await expect(green.getByRole("link", { name: "your message" })).toHaveAttribute("href", `/c/${teaSource.threadId}#message-${teaSource.messageId}`);

    await green.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("dialog", { name: "Delete memory?" }).getByRole("button", { name: "Delete" }).click();
    await expect(green).toHaveCount(0);

    // The thread whose reply used it: the line stays, and says the memory is gone.
    await page.goto(`/c/${usedIn}`);
    await lastReply(page).getByRole("button", { name: "Memory used" }).click();
    await expect(lastReply(page).getByText("a memory since deleted")).toBeVisible();
  });

  test("a temporary chat is marked as one, in its header and the sidebar, uses no memory and teaches none", async () => {
    await page.goto("/");
    const temporary = page.getByRole("switch", { name: "Temporary chat" });
    await expect(temporary).not.toBeChecked();
    await temporary.check();
    const posted = page.waitForRequest(isChatPost);
    const threadId = await startThreadLoosely(page, "remember that I live in Lisbon");
    expect((await posted).postDataJSON()).toMatchObject({ temporary: true });
    await expect(page.getByRole("banner").getByText("Temporary chat")).toBeVisible();
    await expect(lastReply(page).getByRole("button", { name: "Memory used" })).toHaveCount(0);
    await page.reload();
    await expect(page).toHaveURL(`/c/${threadId}`);
    await expect(page.getByRole("banner").getByText("Temporary chat")).toBeVisible();
    await expect(threadsNav(page).locator(`a[href="/c/${threadId}"]`)).toHaveAccessibleName(/temporary chat/);

    // A chat that is not temporary, told the same kind of thing after it, teaches it; the temporary one taught nothing.
    await page.getByRole("button", { name: "New chat" }).click();
    await expect(page.getByRole("switch", { name: "Temporary chat" })).not.toBeChecked();
    await startThreadLoosely(page, "I live in Porto");
    await learned(page, "Lives in Porto");
    expect((await memories(page)).map((m) => m.text)).not.toContain("Lives in Lisbon");
  });
});

/** The reply's "Memory used", opened: it lists the memory, leading to the message it was learned from. */
async function expectMemoryUsed(reply: Locator, text: string, source: { threadId: string; messageId: string }) {
  const used = reply.getByRole("button", { name: "Memory used" });
  if ((await used.getAttribute("aria-expanded")) !== "true") await used.click();
  await expect(used).toHaveAttribute("aria-expanded", "true");
  await expect(reply.getByRole("list", { name: "Memories this reply was given" }).getByRole("link", { name: text })).toHaveAttribute(
    "href",
    `/c/${source.threadId}#message-${source.messageId}`,
  );
}

/** Sends the first message of a new chat and waits for its reply to finish, whatever it says; the new thread's id. */
async function startThreadLoosely(page: Page, text: string): Promise<string> {
  const response = await sendMessage(page, text);
  const threadId = response.headers()["x-thread-id"];
  await expect(page).toHaveURL(new RegExp(`/c/${threadId}`));
  await expect(assistantMessages(page)).toHaveCount(1);
  await expectReplyFinished(page);
  await expect(threadAlert(page)).toHaveCount(0);
  return threadId;
}

async function streamText(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}
