import { expect, test, type Page } from "@playwright/test";
import { MOCK_MCP_URL } from "../../scripts/e2e-env.mjs";
import { expectReplyFinished, lastReply, sendMessage, uniqueToken, UUID } from "./helpers";

// The suite's apps are given one MCP server, "notes" (scripts/mock-mcp-server.mjs):
// its record_note asks first, through the same card as every tool; approved,
// it runs once on the server, and its card names the server it came from.
const approvalCard = (page: Page) => lastReply(page).getByRole("group", { name: /^Waiting for your approval/ });
const noteCard = (page: Page) => lastReply(page).getByRole("group", { name: "Tool: record_note (MCP server notes)" });

test("an MCP tool's call asks first; approved, it runs once on the server, and its card names the server", async ({ page, request }) => {
  const note = `buy milk ${uniqueToken()}`;
  await page.goto("/");
  const response = await sendMessage(page, `[[call:notes__record_note:${JSON.stringify({ text: note })}]]`);
  const threadId = response.headers()["x-thread-id"];
  expect(threadId).toMatch(UUID);
  const card = approvalCard(page);
  await expect(card).toBeVisible({ timeout: 30_000 });
  await expect(card).toContainText("record_note of the MCP server notes");
  await expect(card).toContainText(note);
  await expectReplyFinished(page);
  const recorded = async () =>
    ((await (await request.get(`${MOCK_MCP_URL}/__calls`)).json()) as { tool: string; input: { text?: string } }[]).filter((c) => c.input.text === note);
  expect(await recorded()).toEqual([]);

  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(noteCard(page)).toContainText("Approved");
  await expect(lastReply(page)).toContainText(`noted: ${note}`);
  await expectReplyFinished(page);
  expect(await recorded()).toHaveLength(1);

  // After a reload the card still says what ran, and where; the debug panel lists the server and its tools.
  await page.goto(`/c/${threadId}?debug=true`);
  await expect(noteCard(page)).toContainText("notes");
  const servers = page.getByRole("list", { name: "MCP servers" });
  await expect(servers).toContainText("notes: connected");
  for (const tool of ["record_note", "lookup", "slow", "big"]) await expect(servers).toContainText(`notes__${tool}`);
  expect(await recorded()).toHaveLength(1);
});
