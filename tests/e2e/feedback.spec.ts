import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { lastReply, regenerateWith, startThread, uniqueToken } from "./helpers";

// What the user thought of a reply, in the page: "Good response" and "Bad
// response" under every reply version, pressed as the server keeps them
// (after a reload too), "Bad response" asking why; pressed again, cleared.
const good = (page: Page) => lastReply(page).getByRole("button", { name: "Good response" });
const bad = (page: Page) => lastReply(page).getByRole("button", { name: "Bad response" });
const whyForm = (page: Page) => page.getByRole("form", { name: "What was wrong with this response?" });

test("thumbs up, then down with a reason and a comment, kept across a reload and shown in the debug panel; pressed again, cleared", async ({ page }) => {
  await page.goto("/");
  const threadId = await startThread(page, `rate me ${uniqueToken()}`);

  await good(page).click();
  await expect(good(page)).toHaveAttribute("aria-pressed", "true");
  await page.reload();
  await expect(good(page)).toHaveAttribute("aria-pressed", "true");
  await expect(bad(page)).toHaveAttribute("aria-pressed", "false");

  await bad(page).click();
  await expect(bad(page)).toHaveAttribute("aria-pressed", "true");
  await expect(good(page)).toHaveAttribute("aria-pressed", "false");
  await whyForm(page).getByLabel("Too long").check();
  await whyForm(page).getByLabel("Comment (optional)").fill("Half as long, please.");
  await whyForm(page).getByRole("button", { name: "Send feedback" }).click();
  await expect(whyForm(page)).toBeHidden();
  await expect(bad(page)).toBeFocused();

  await page.goto(`/c/${threadId}?debug=true`);
  await expect(bad(page)).toHaveAttribute("aria-pressed", "true");
  await expect(bad(page)).toHaveAttribute("title", "Bad response: Too long");
  await expect(page.locator("[data-last-reply-feedback]")).toHaveText('Feedback on the last reply: bad, Too long, "Half as long, please."');

  await bad(page).click();
  await expect(bad(page)).toHaveAttribute("aria-pressed", "false");
  await page.reload();
  await expect(bad(page)).toHaveAttribute("aria-pressed", "false");
  await expect(good(page)).toHaveAttribute("aria-pressed", "false");
  await expect(page.locator("[data-last-reply-feedback]")).toHaveText("Feedback on the last reply: none");
});

test("by keyboard alone: a reason picked with the arrows, Escape leaves the rating as it is; each version keeps its own; the form has no serious accessibility violation", async ({ page }) => {
  await page.goto("/");
  await startThread(page, `keys ${uniqueToken()} [[nth]]`);
  await bad(page).focus();
  await page.keyboard.press("Enter");
  await expect(whyForm(page)).toBeVisible();
  // The first reason has the focus; the arrows move the choice.
  await expect(whyForm(page).getByLabel("Not accurate")).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(whyForm(page).getByLabel("Not helpful")).toBeChecked();

  const { violations } = await new AxeBuilder({ page }).include("form").analyze();
  expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);

  await page.keyboard.press("Escape");
  await expect(whyForm(page)).toBeHidden();
  await expect(bad(page)).toBeFocused();
  await expect(bad(page)).toHaveAttribute("aria-pressed", "true");

  // A regenerated version starts with none; going back to the first shows its own.
  await regenerateWith(page);
  await expect(lastReply(page)).toContainText("(answer 2)");
  await expect(bad(page)).toHaveAttribute("aria-pressed", "false");
  await good(page).click();
  await expect(good(page)).toHaveAttribute("aria-pressed", "true");
  await lastReply(page).getByRole("button", { name: "Previous version" }).click();
  await expect(lastReply(page)).not.toContainText("(answer 2)");
  await expect(bad(page)).toHaveAttribute("aria-pressed", "true");
  await expect(good(page)).toHaveAttribute("aria-pressed", "false");
});
