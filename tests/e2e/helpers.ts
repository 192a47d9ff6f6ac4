import { expect, type Locator, type Page, type Request, type Response } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { echoReply } from "../../scripts/mock-model-server.mjs";

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A short random word that makes a test's messages and titles its own. */
export function uniqueToken(): string {
  return randomBytes(4).toString("hex");
}

/** Collapses whitespace the way a reader sees it, so markup differences do not matter. */
export function normalize(text: string | null | undefined): string {
  return (text ?? "").replace(/\s+/g, " ").trim();
}

export const composer = (page: Page) => page.getByRole("textbox", { name: "Message" });
export const sendButton = (page: Page) => page.getByRole("button", { name: "Send" });
export const stopButton = (page: Page) => page.getByRole("button", { name: "Stop" });
export const userMessages = (page: Page) => page.locator('[data-role="user"]');
export const assistantMessages = (page: Page) => page.locator('[data-role="assistant"]');
export const lastReply = (page: Page) => assistantMessages(page).last();
/** "Regenerate" on the last reply, then the model it is written by from "Regenerate with" (the suite's apps offer two). */
export async function regenerateWith(page: Page, model = "Mock model"): Promise<void> {
  await lastReply(page).getByRole("button", { name: "Regenerate" }).click();
  await page.getByRole("menu", { name: "Regenerate with" }).getByRole("menuitem", { name: model, exact: true }).click();
}
export const threadsNav = (page: Page) => page.getByRole("navigation", { name: "Threads" });
export const threadLink = (page: Page, title: string) => threadsNav(page).getByRole("link", { name: title });

/** The sidebar row that holds a thread's link and its Rename/Delete buttons. */
export function threadRow(page: Page, title: string): Locator {
  return threadsNav(page)
    .getByRole("listitem")
    .filter({ has: page.getByRole("link", { name: title }) });
}

/** An error shown in the thread. Next's route announcer also has role="alert"; it is not one. */
export const threadAlert = (page: Page) => page.locator('[role="alert"]:not(#__next-route-announcer__)');

/** What a visitor sees for a thread that does not exist or is not theirs. */
export const notFoundMessage = (page: Page) =>
  page
    .getByText(/not found|could not be found/i)
    .filter({ visible: true })
    .first();

export const isChatPost = (request: Request) =>
  request.method() === "POST" && new URL(request.url()).pathname === "/api/chat";

/** Types a message and presses Enter; resolves with the chat response once its headers arrive. */
export async function sendMessage(page: Page, text: string): Promise<Response> {
  const response = page.waitForResponse((r) => isChatPost(r.request()));
  await composer(page).fill(text);
  await composer(page).press("Enter");
  return response;
}

/** The reply is over when Send is back and Stop is gone (no endless spinner). */
export async function expectReplyFinished(page: Page): Promise<void> {
  await expect(stopButton(page)).toBeHidden();
  await expect(sendButton(page)).toBeVisible();
}

/**
 * Sends the first message of a new chat and waits for the mock's whole reply.
 * Returns the new thread's id.
 */
export async function startThread(page: Page, text: string): Promise<string> {
  const response = await sendMessage(page, text);
  const threadId = response.headers()["x-thread-id"];
  expect(threadId).toMatch(UUID);
  await expect(lastReply(page)).toContainText(echoReply(text, 1, 0));
  await expect(page).toHaveURL(`/c/${threadId}`);
  await expectReplyFinished(page);
  return threadId;
}

/**
 * The project a spec that needs one run only (its own server, the operator's
 * app, a layout) runs in: the Inngest one, which has fewer tests of its own,
 * so the two projects' workers, side by side, finish together.
 */
export const ONCE_PROJECT = "inngest";
