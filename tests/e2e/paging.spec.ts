import { expect, test } from "@playwright/test";
import pg from "pg";
import { E2E_EMBEDDED_DIRS, PAGING_APP_PORT, PAGING_APP_URL } from "../../scripts/e2e-env.mjs";
import { ONCE_PROJECT } from "./helpers";
import { holdDatabase, startServer } from "./own-server";

// A 300-message thread opens at its newest messages; scrolling up loads the
// earlier ones, a page at a time, in order, with no gap and no repeat, and
// the reader stays where they were. The thread is written straight into the
// database of a server this spec starts (its own port and embedded database:
// the crash spec may run beside it).

test.use({ baseURL: PAGING_APP_URL });

test("a 300-message thread opens at its end and scrolls back to its start", async ({ page }, testInfo) => {
  test.skip(testInfo.project.name !== ONCE_PROJECT, "this spec runs a server of its own, once");
  test.setTimeout(120_000);
  const database = await holdDatabase(E2E_EMBEDDED_DIRS[4]);
  const db = new pg.Client({ connectionString: database.url });
  const server = await startServer(database, PAGING_APP_PORT);
  try {
    await db.connect();
    await page.goto("/");
    const first = await page.request.post("/api/chat", { data: { message: { id: crypto.randomUUID(), content: "the first words" } } });
    const threadId = first.headers()["x-thread-id"];
    await first.text();
    // Each seeded message follows the one before it, as the thread's one path (no other versions).
    await db.query(
      `WITH t AS (SELECT next_seq FROM threads WHERE id = $1),
            last AS (SELECT message_id FROM messages WHERE thread_id = $1 AND part_index = 0 ORDER BY seq DESC LIMIT 1)
       INSERT INTO messages (thread_id, seq, message_id, kind, content, parent_message_id)
       SELECT $1, t.next_seq + g - 1, 'seed-' || g, CASE WHEN g % 2 = 1 THEN 'user' ELSE 'assistant' END, 'Seeded message ' || g,
              CASE WHEN g = 1 THEN last.message_id ELSE 'seed-' || (g - 1) END
         FROM t, last, generate_series(1, 298) AS g`,
      [threadId],
    );
    await db.query("UPDATE threads SET next_seq = next_seq + 298, message_count = message_count + 298 WHERE id = $1", [threadId]);

    await page.goto(`/c/${threadId}`);
    const shown = page.locator('[data-role="user"], [data-role="assistant"]');
    await expect(shown).toHaveCount(50);
    await expect(shown.last()).toContainText("Seeded message 298");
    const earlier = page.getByRole("button", { name: "Load earlier messages" });
    await expect(earlier).toBeAttached();

    // Scroll to the top; each time the list grows by a page, the message that was first stays in view.
    const list = page.getByRole("log", { name: "Conversation" }).locator("..");
    for (let loaded = 50; loaded < 300; ) {
      const firstBefore = shown.first();
      const text = await firstBefore.textContent();
      await list.evaluate((el) => (el.scrollTop = 0));
      loaded = Math.min(300, loaded + 50);
      await expect(shown).toHaveCount(loaded);
      const stillThere = page.locator('[data-role="user"], [data-role="assistant"]', { hasText: text! }).first();
      await expect(stillThere).toBeInViewport();
    }
    await expect(earlier).toHaveCount(0);
    const texts = await shown.allTextContents();
    const seeded = texts.flatMap((t) => (/Seeded message (\d+)/.exec(t) ? [Number(/Seeded message (\d+)/.exec(t)![1])] : []));
    expect(seeded).toEqual(Array.from({ length: 298 }, (_, i) => i + 1));
    expect(texts[0]).toContain("the first words");

    // A search result for an early message opens the thread there: the pages before it load first.
    await page.goto(`/c/${threadId}#message-seed-3`);
    const found = page.locator("#message-seed-3");
    await expect(found).toHaveAttribute("data-found", "true");
    await expect(found).toBeInViewport();
    await expect(found).toContainText("Seeded message 3");
  } finally {
    server.kill("SIGKILL");
    await db.end().catch(() => {});
    database.process.kill("SIGTERM");
  }
});
