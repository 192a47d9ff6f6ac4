import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import pg from "pg";
import { expectNoSeriousViolations } from "./axe";
import { startAccountsServer, type AccountsServer } from "./accounts-server";
import { composer, lastReply, uniqueToken } from "./helpers";

// Budgets as an admin sets them and a person meets them, on a server of the
// spec's own (AUTH_MODE=accounts, an install nobody has signed up to yet):
// the admin makes a group on /admin/budgets, puts the second person in it and
// gives it $2 a day; that person's account menu says "Used $0.00 of $2.00
// today"; once $1.70 of it is spent, the warning by the composer appears when
// their next reply ends, by their own clock.

let server: AccountsServer;

test.beforeAll(async ({}, testInfo) => {
  test.setTimeout(120_000);
  server = await startAccountsServer(testInfo.project.name === "inngest" ? "inngest" : "inline", { AUTH_SIGNUP: "open" });
});

test.afterAll(async () => {
  await server?.stop();
});

test.describe.configure({ mode: "serial" });

// The reader's clock: the budget's day ends at the server's midnight (UTC), which is theirs too.
test.use({ timezoneId: "UTC" });

const ADMIN = { name: "Ana Admin", email: "ana@example.org", password: "correct horse battery" };
const BO = { name: "Bo Member", email: `bo-${randomUUID().slice(0, 8)}@example.org`, password: "another long phrase" };

async function signUp(page: Page, person: { name: string; email: string; password: string }): Promise<void> {
  await page.goto(`${server.base}/sign-up`);
  await page.getByLabel("Name").fill(person.name);
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(person.password);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(`${server.base}/`);
}

async function signedIn(page: Page, person: { email: string; password: string }): Promise<Page> {
  await page.goto(`${server.base}/sign-in`);
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(person.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL(`${server.base}/`);
  return page;
}

/** Dollars spent on `email`'s bill by a model call reserved elsewhere: `dollars`, an SQL expression over their user row `u`. */
async function spendElsewhere(email: string, dollars: string): Promise<void> {
  const db = new pg.Client({ connectionString: server.databaseUrl });
  await db.connect();
  try {
    await db.query(
      `SELECT threadline_reserve_call(gen_random_uuid(), u.id, true, now(), 'UTC', NULL, NULL, NULL, 'answer', 'triage', 'spent elsewhere', 1000, 0, 0, ${dollars}, 0)
         FROM auth_users u WHERE u.email = $1`,
      [email],
    );
  } finally {
    await db.end();
  }
}

async function accountMenu(page: Page) {
  const button = page.getByRole("button", { name: "Account" });
  if ((await button.getAttribute("aria-expanded")) !== "true") await button.click();
  return page.locator("[data-my-budget]");
}

test("an admin gives a group a budget on the Budgets page, and its member sees it in their account menu", async ({ browser }) => {
  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  await signUp(admin, ADMIN);
  const boContext = await browser.newContext();
  const bo = await boContext.newPage();
  await signUp(bo, BO);
  // No budget binds them yet: no line at all.
  await accountMenu(bo);
  await expect(bo.getByRole("button", { name: "Sign out" })).toBeVisible();
  await expect(bo.locator("[data-my-budget]")).toHaveCount(0);

  await accountMenu(admin);
  await admin.getByRole("link", { name: "Budgets" }).click();
  await expect(admin.getByRole("heading", { name: "Budgets", level: 1 })).toBeVisible();
  // The page's own alert (Next's route announcer is one too).
  const problem = admin.locator("p[role=alert]");

  // A name another group has is refused, and the page says why.
  await admin.getByLabel("New group's name").fill("Team");
  await admin.getByRole("button", { name: "Create group" }).click();
  const team = admin.getByRole("region", { name: "Team" });
  await expect(team).toBeVisible();
  await admin.getByLabel("New group's name").fill("Team");
  await admin.getByRole("button", { name: "Create group" }).click();
  await expect(problem).toHaveText('There is a group named "Team" already.');

  await team.getByLabel("Add a person").selectOption({ label: `${BO.name} (${BO.email})` });
  await team.getByRole("button", { name: "Add", exact: true }).click();
  await expect(team.getByRole("list", { name: "Members of Team" })).toContainText(BO.email);

  const budget = team.getByRole("group", { name: "Budget of Team" });
  await budget.getByLabel("Amount").fill("2");
  await budget.getByLabel("Unit").selectOption("usd");
  await budget.getByLabel("Period").selectOption("day");
  await budget.getByRole("button", { name: "Save" }).click();
  await expect(admin.getByRole("group", { name: "Budget of Team" })).toContainText("Now: $2/day.");
  await expect(problem).toHaveText("");
  await expectNoSeriousViolations(admin, "the Budgets page, light");
  await admin.emulateMedia({ colorScheme: "dark" });
  await expectNoSeriousViolations(admin, "the Budgets page, dark");

  await bo.reload();
  await expect(await accountMenu(bo)).toHaveText("Used $0.00 of $2.00 today");
  await expect(bo.getByRole("status").filter({ hasText: "You have used" })).toHaveCount(0);
  await adminContext.close();
  await boContext.close();
});

test("past 80% of the budget, a warning by the composer says so when the next reply ends", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await signedIn(await context.newPage(), BO);
  await expect(await accountMenu(page)).toHaveText("Used $0.00 of $2.00 today");

  // $1.70 spent on their bill, as model calls' reservations count it.
  await spendElsewhere(BO.email, "1.7");

  const text = `spend words ${uniqueToken()}`;
  await composer(page).fill(text);
  await composer(page).press("Enter");
  await expect(lastReply(page)).toContainText(text, { timeout: 30_000 });
  const warning = page.getByRole("status").filter({ hasText: "You have used" });
  await expect(warning).toHaveText("You have used 85% of your $2.00 for today; it renews at midnight.");
  await expect(await accountMenu(page)).toHaveText("Used $1.70 of $2.00 today");
  await context.close();
});

test("at the end of the budget, a message is refused: the thread says why, keeps the message, and says it again after a reload", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await signedIn(await context.newPage(), BO);

  // The rest of the $2.00 spent elsewhere.
  await spendElsewhere(BO.email, "2 - (SELECT spent_usd FROM threadline_budget_status(u.id, true, now(), 'UTC', NULL, NULL))");

  const text = `one more question ${uniqueToken()}`;
  await composer(page).fill(text);
  await composer(page).press("Enter");
  const said = "You have used your $2.00 for today; it renews at midnight (UTC).";
  await expect(page.getByRole("alert").filter({ hasText: said })).toBeVisible({ timeout: 30_000 });
  // Sending it again would be refused again: no Retry.
  await expect(page.getByRole("button", { name: "Retry" })).toHaveCount(0);
  // The message stays in view, and its thread, named after it, is in the sidebar.
  await expect(page.getByText(text)).toHaveCount(2);
  await expect(page.getByRole("link", { name: text })).toBeVisible();
  await expect(await accountMenu(page)).toHaveText("Used $2.00 of $2.00 today");

  // The thread keeps the message and the notice that answered it.
  await page.getByRole("link", { name: text }).first().click();
  await expect(page.getByRole("note", { name: "Budget" })).toContainText(said);
  await expect(page.getByText(text).first()).toBeVisible();
  await expectNoSeriousViolations(page, "a thread a budget refused");
  await context.close();
});
