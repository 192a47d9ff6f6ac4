import { expect, test, type Browser, type Page } from "@playwright/test";
import { expectNoSeriousViolations } from "./axe";
import { E2E_EMBEDDED_DIRS, SPEND_APP_PORT } from "../../scripts/e2e-env.mjs";
import { startAccountsServer, type AccountsServer } from "./accounts-server";
import { composer, lastReply, ONCE_PROJECT, uniqueToken } from "./helpers";

// Who spent what, as an admin finds it: on an install of the spec's own
// (AUTH_MODE=accounts, the suite's mock model priced at $1 in and $2 out a
// million tokens), a member chats; the admin opens Spend from the account
// menu, sees the chart of spend by day and the member's line in the table,
// switches to the lines by model, and the page passes axe in both colour
// schemes. A member who tries the page finds nothing there.

let server: AccountsServer;

test.beforeAll(async ({}, testInfo) => {
  test.skip(testInfo.project.name !== ONCE_PROJECT, "this spec runs a server of its own, once");
  test.setTimeout(120_000);
  server = await startAccountsServer("inline", {}, { port: SPEND_APP_PORT, name: "spend", embeddedDir: E2E_EMBEDDED_DIRS[7] });
});

test.afterAll(async () => {
  await server?.stop();
});

const ADMIN = { name: "Ana Admin", email: "ana@example.org", password: "correct horse battery" };
const MEMBER = { name: "Bo Member", email: "bo@example.org", password: "another long phrase" };

async function signUp(page: Page, person: { name: string; email: string; password: string }): Promise<void> {
  await page.getByLabel("Name").fill(person.name);
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(person.password);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(`${server.base}/`);
}

/** A member invited by the admin, signed up in a browser of their own. */
async function memberPage(browser: Browser, admin: Page): Promise<Page> {
  await admin.getByRole("button", { name: "Account" }).click();
  await admin.getByRole("link", { name: "People" }).click();
  await admin.getByRole("button", { name: "Invite" }).click();
  const link = await admin.getByLabel("Invite link").inputValue();
  const page = await (await browser.newContext()).newPage();
  await page.goto(link);
  await signUp(page, MEMBER);
  return page;
}

test("an admin sees who spent what: the chart by day, a member's spend, the lines by model", async ({ page, browser }) => {
  await page.goto(`${server.base}/`);
  await signUp(page, ADMIN);
  const member = await memberPage(browser, page);
  const text = `what does this cost ${uniqueToken()}`;
  await composer(member).fill(text);
  await composer(member).press("Enter");
  await expect(lastReply(member)).toContainText(text, { timeout: 30_000 });

  // The member is no admin: the page is not there for them.
  await member.goto(`${server.base}/admin/spend`);
  await expect(member.getByRole("heading", { name: "Spend" })).toHaveCount(0);
  await expect(member.getByText(/not found|could not be found/i).first()).toBeVisible();
  await member.context().close();

  await page.goto(`${server.base}/`);
  await page.getByRole("button", { name: "Account" }).click();
  await page.getByRole("link", { name: "Spend" }).click();
  await expect(page.getByRole("heading", { name: "Spend", level: 1 })).toBeVisible();
  const chart = page.getByRole("figure", { name: "Spend by day" });
  await expect(chart).toBeVisible();
  // Thirty bars' worth of days, today's with the member's spend on it.
  await expect(chart.getByRole("img")).toHaveAccessibleName(/^30 days from .+; the highest, .+: \$/);

  const table = page.getByRole("table", { name: "Spend by person" });
  const row = table.getByRole("row").filter({ hasText: "Bo Member <bo@example.org>" });
  await expect(row).toHaveCount(1);
  // Calls, tokens in and out, a cost in dollars (the mock model has a price), no refused turn.
  const cells = row.getByRole("cell");
  expect(Number((await cells.nth(0).innerText()).replaceAll(",", ""))).toBeGreaterThanOrEqual(1);
  expect(Number((await cells.nth(1).innerText()).replaceAll(",", ""))).toBeGreaterThan(0);
  await expect(cells.nth(3)).toHaveText(/^\$\d/);
  await expect(cells.nth(4)).toHaveText("0");
  await expect(page.getByRole("region", { name: "Top spenders" })).toContainText("Bo Member");
  await expect(page.getByRole("link", { name: "Download CSV" })).toHaveAttribute("href", /^\/api\/admin\/usage\?.*groupBy=person.*format=csv/);

  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await expectNoSeriousViolations(page, `the Spend page, ${scheme}`);
  }

  await page.getByRole("navigation", { name: "Group by" }).getByRole("link", { name: "Model" }).click();
  const byModel = page.getByRole("table", { name: "Spend by model" });
  await expect(byModel.getByRole("rowheader", { name: "openai-compatible:mock-model" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Group by" }).getByRole("link", { name: "Model" })).toHaveAttribute("aria-current", "page");
  await expect(page).toHaveURL(/groupBy=model/);
});
