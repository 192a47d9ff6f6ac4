import { expect, test, type Page } from "@playwright/test";
import { REASONING_TEXT } from "../../scripts/mock-model-server.mjs";
import { expectReplyFinished, lastReply, sendButton, sendMessage, stopButton, uniqueToken, UUID } from "./helpers";

// The timeline of a reply that acts: which agent speaks, the hand-over, the
// reasoning, each tool call as a card, then the answer; live and after a reload.

const toolCard = (page: Page, name: string) => lastReply(page).getByRole("group", { name: `Tool: ${name}` });

/** What the reply shows, part by part, in a form a live view and a reloaded one can be compared in. */
async function timeline(page: Page): Promise<string[]> {
  return lastReply(page)
    .locator('[role="group"], .markdown, button[aria-expanded]:not([aria-label="Details"]), p, span')
    .evaluateAll((elements) =>
      elements
        .filter((el) => !el.closest('[role="group"]') || el.getAttribute("role") === "group")
        .map((el) => (el.getAttribute("role") === "group" ? `${el.getAttribute("aria-label")} [${el.textContent}]` : el.textContent ?? ""))
        .map((text) => text.replace(/\s+/g, " ").replace(/Thought for \d+ s/, "Thought for N s").trim())
        .filter((text) => text.length > 0),
    );
}

test("a message that needs tools shows the hand-over, the tool cards and the answer as they stream, and the same timeline after a reload", async ({ page }) => {
  await page.goto("/");
  const token = uniqueToken();
  const response = await sendMessage(
    page,
    `[[slow]] [[reason]] ${token} [[call:current_time:{"timeZone":"Asia/Tokyo"}]] [[call:calculate:{"expression":"6 * 7"}]]`,
  );
  const threadId = response.headers()["x-thread-id"];
  expect(threadId).toMatch(UUID);

  // While the reply is still being written: both agents named, the cards done, the answer arriving.
  await expect(toolCard(page, "calculate")).toContainText("Done", { timeout: 30_000 });
  await expect(stopButton(page)).toBeVisible();
  await expect(lastReply(page)).toContainText("Triage");
  await expect(lastReply(page)).toContainText("Triage handed over to Researcher");
  await expect(lastReply(page)).toContainText("Researcher");
  await expect(toolCard(page, "current_time")).toContainText('timeZone: "Asia/Tokyo"');
  await expect(toolCard(page, "current_time")).toContainText("Done");
  await expect(lastReply(page).locator(".markdown")).toContainText("Tool results:");
  await expectReplyFinished(page);
  await expect(lastReply(page).locator(".markdown")).toContainText('calculate → {"expression":"6 * 7","result":"42"}');

  // The reasoning is collapsed until asked for.
  const thought = lastReply(page).getByRole("button", { name: /^Thought for/ }).last();
  await expect(lastReply(page).getByRole("region", { name: "Reasoning" })).toHaveCount(0);
  await thought.click();
  await expect(lastReply(page).getByRole("region", { name: "Reasoning" })).toHaveText(REASONING_TEXT);
  await thought.click();

  // A tool card opens to its full input and output.
  await toolCard(page, "calculate").getByRole("button", { name: "Details" }).click();
  await expect(toolCard(page, "calculate")).toContainText('"result": "42"');
  await toolCard(page, "calculate").getByRole("button", { name: "Details" }).click();

  const live = await timeline(page);
  await page.reload();
  await expect(toolCard(page, "calculate")).toContainText("Done");
  expect(await timeline(page)).toEqual(live);
  await expect(lastReply(page).getByRole("button", { name: "Copy" })).toBeVisible();
});

test("Stop during a tool call keeps what was produced, and a reload shows the same", async ({ page }) => {
  await page.goto("/");
  const response = await sendMessage(page, `[[slow]] ${uniqueToken()} [[call:calculate:{"expression":"12345 * 6789"}]]`);
  const threadId = response.headers()["x-thread-id"];
  await expect(toolCard(page, "calculate")).toBeVisible({ timeout: 30_000 });
  await stopButton(page).click();
  await expect(sendButton(page)).toBeVisible();
  await expect(toolCard(page, "calculate")).toContainText("Stopped");
  await expect(lastReply(page)).toContainText("Triage handed over to Researcher");
  const kept = await timeline(page);

  await expect(async () => {
    await page.goto(`/c/${threadId}`);
    await expect(toolCard(page, "calculate")).toContainText("Stopped", { timeout: 2_000 });
    expect(await timeline(page)).toEqual(kept);
  }).toPass({ timeout: 20_000 });
});

test("the Copy button copies a message's text", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto("/");
  const text = `copy me ${uniqueToken()}`;
  await sendMessage(page, text);
  await expectReplyFinished(page);
  await lastReply(page).hover();
  await lastReply(page).getByRole("button", { name: "Copy" }).click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toContain(`You said: "${text}"`);
});
