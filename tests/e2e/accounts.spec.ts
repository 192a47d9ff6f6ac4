import { expect, test, type Browser, type Page } from "@playwright/test";
import { expectNoSeriousViolations } from "./axe";
import { ACCOUNTS_APP_PORTS, ACCOUNTS_OIDC_PORTS } from "../../scripts/e2e-env.mjs";
import { startTestOidc, type TestOidc } from "../support/oidc-provider";
import { startAccountsServer, type AccountsServer } from "./accounts-server";
import { composer, lastReply, threadLink, uniqueToken } from "./helpers";

// AUTH_MODE=accounts as people meet it, on a server of the spec's own (an
// install nobody has signed up to yet), on each runtime: the first person
// creates the admin account and chats; they invite a second, who signs up in
// another browser and sees none of the first's threads; a guest chats, signs
// up through an invite and finds their thread; signing out ends the session.
// Every page of signing in and up passes axe in both colour schemes.

let server: AccountsServer;
let oidc: TestOidc | undefined;

test.beforeAll(async ({}, testInfo) => {
  test.setTimeout(120_000);
  const runtime = testInfo.project.name === "inngest" ? "inngest" : "inline";
  const appUrl = `http://localhost:${ACCOUNTS_APP_PORTS[runtime]}`;
  // The team's identity provider: a real OpenID Connect provider on loopback, with its own sign-in pages.
  oidc = await startTestOidc({ redirectUris: [`${appUrl}/api/auth/callback/oidc`], port: ACCOUNTS_OIDC_PORTS[runtime], people: { olga: { email: "olga@example.org", name: "Olga SSO" } } });
  server = await startAccountsServer(runtime, {
    AUTH_GUESTS: "1",
    APP_URL: appUrl,
    AUTH_OIDC_ISSUER: oidc.issuer,
    AUTH_OIDC_CLIENT_ID: oidc.clientId,
    AUTH_OIDC_CLIENT_SECRET: oidc.clientSecret,
    AUTH_OIDC_LABEL: "Team SSO",
  });
});

test.afterAll(async () => {
  await server?.stop();
  await oidc?.close();
});

// One install, in order: the first account is made once.
test.describe.configure({ mode: "serial" });

const ADMIN = { name: "Ana Admin", email: "ana@example.org", password: "correct horse battery" };

async function fillSignUp(page: Page, person: { name: string; email: string; password: string }): Promise<void> {
  await page.getByLabel("Name").fill(person.name);
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(person.password);
  await page.getByRole("button", { name: "Create account" }).click();
}

async function signIn(page: Page, person: { email: string; password: string }): Promise<void> {
  await page.goto(`${server.base}/sign-in`);
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(person.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL(`${server.base}/`);
}

async function chat(page: Page, text: string): Promise<void> {
  await composer(page).fill(text);
  await composer(page).press("Enter");
  await expect(lastReply(page)).toContainText(text, { timeout: 30_000 });
}

/** An invite link, made on the admin's People page. */
async function invite(browser: Browser): Promise<string> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, ADMIN);
  await page.getByRole("button", { name: "Account" }).click();
  await page.getByRole("link", { name: "People" }).click();
  await expect(page.getByRole("heading", { name: "People" })).toBeVisible();
  await page.getByRole("button", { name: "Invite" }).click();
  const link = await page.getByLabel("Invite link").inputValue();
  await context.close();
  return link;
}

test("the first person creates the admin account and chats; nobody else gets in without signing in", async ({ page }) => {
  await page.goto(`${server.base}/`);
  await expect(page).toHaveURL(`${server.base}/sign-up`);
  await expect(page.getByRole("heading", { name: "Create the first account" })).toBeVisible();
  await fillSignUp(page, ADMIN);
  await page.waitForURL(`${server.base}/`);
  const text = `first words ${uniqueToken()}`;
  await chat(page, text);
  await page.getByRole("button", { name: "Account" }).click();
  await expect(page.getByRole("link", { name: "People" })).toBeVisible();

  // Another browser: the sign-in page, and every API answers 401.
  const stranger = await page.context().browser()!.newContext();
  const other = await stranger.newPage();
  await other.goto(`${server.base}/`);
  await expect(other).toHaveURL(`${server.base}/sign-in`);
  expect((await other.request.get(`${server.base}/api/threads`)).status()).toBe(401);
  await stranger.close();
});

test("an invited person signs up in another browser and sees only their own threads", async ({ browser }) => {
  const link = await invite(browser);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(link);
  await expect(page.getByText("You were invited")).toBeVisible();
  await fillSignUp(page, { name: "Bo Member", email: `bo-${uniqueToken()}@example.org`, password: "another long phrase" });
  await page.waitForURL(`${server.base}/`);
  await expect(page.getByRole("navigation", { name: "Threads" }).getByRole("link")).toHaveCount(0);
  await page.getByRole("button", { name: "Account" }).click();
  await expect(page.getByRole("link", { name: "People" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();

  // The same link again: used up.
  const again = await (await browser.newContext()).newPage();
  await again.goto(link);
  await expect(again.getByText("This invite link has been used or has expired")).toBeVisible();
  await context.close();
});

test("a guest chats, signs up through an invite, and finds the thread in the account", async ({ browser }) => {
  const link = await invite(browser);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${server.base}/sign-in`);
  await page.getByRole("button", { name: "Continue as guest" }).click();
  await page.waitForURL(`${server.base}/`);
  const text = `guest words ${uniqueToken()}`;
  await chat(page, text);
  await expect(threadLink(page, text)).toBeVisible();

  await page.goto(link);
  await expect(page.getByText("Everything you made as a guest comes with you.")).toBeVisible();
  await fillSignUp(page, { name: "Gus Guest", email: `gus-${uniqueToken()}@example.org`, password: "a guest no more" });
  await page.waitForURL(`${server.base}/`);
  await expect(threadLink(page, text)).toBeVisible();
  await expect(page.getByRole("button", { name: "Account" })).toContainText("Gus Guest");
  await context.close();
});

test("an invited person signs up through the identity provider's own sign-in page", async ({ browser }) => {
  const link = await invite(browser);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(link);
  await page.getByRole("button", { name: "Sign in with Team SSO" }).click();
  // The provider's own pages (oidc-provider's development sign-in and consent forms).
  await page.waitForURL((url) => url.port === String(ACCOUNTS_OIDC_PORTS[test.info().project.name === "inngest" ? "inngest" : "inline"]));
  await page.locator('input[name="login"]').fill("olga");
  await page.locator('input[name="password"]').fill("anything");
  await page.locator('button[type="submit"]').click();
  const consent = page.locator('button[type="submit"]');
  await page.waitForURL((url) => url.origin === server.base || url.pathname.includes("/interaction/"));
  if (new URL(page.url()).origin !== server.base) await consent.click();
  await page.waitForURL(`${server.base}/`);
  await expect(page.getByRole("button", { name: "Account" })).toContainText("Olga SSO");
  const me = await (await page.request.get(`${server.base}/api/me`)).json();
  expect(me.user).toMatchObject({ email: "olga@example.org", role: "member" });
  await context.close();
});

test("two devices of one account see the same threads, live", async ({ browser }) => {
  const [laptop, phone] = [await browser.newContext(), await browser.newContext()];
  const [a, b] = [await laptop.newPage(), await phone.newPage()];
  await signIn(a, ADMIN);
  await signIn(b, ADMIN);
  const text = `from the laptop ${uniqueToken()}`;
  await chat(a, text);
  // The phone's sidebar shows it without a reload.
  await expect(threadLink(b, text)).toBeVisible({ timeout: 15_000 });
  await laptop.close();
  await phone.close();
});

test("signing out ends the session on the server", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, ADMIN);
  const cookies = await context.cookies();
  await page.getByRole("button", { name: "Account" }).click();
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${server.base}/sign-in`);
  // The old cookie, sent again by hand, opens nothing.
  const replay = await browser.newContext();
  await replay.addCookies(cookies);
  expect((await replay.request.get(`${server.base}/api/threads`)).status()).toBe(401);
  await replay.close();
  await context.close();
});

test("a passkey added from the account menu signs in without the password", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  // Chromium's virtual authenticator stands in for the device's screen lock.
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  await signIn(page, ADMIN);
  await page.getByRole("button", { name: "Account" }).click();
  await page.getByRole("link", { name: "Passkeys" }).click();
  await expect(page.getByText("You have no passkeys yet.")).toBeVisible();
  await page.getByLabel("Passkey name").fill("Virtual key");
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await expect(page.getByRole("list", { name: "Your passkeys" }).getByText("Virtual key")).toBeVisible();

  await page.getByRole("button", { name: "Account" }).click();
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${server.base}/sign-in`);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await page.waitForURL(`${server.base}/`);
  await expect(page.getByRole("button", { name: "Account" })).toContainText("Ana Admin");

  await page.goto(`${server.base}/account/passkeys`);
  await page.getByRole("button", { name: "Remove Virtual key" }).click();
  await expect(page.getByText("You have no passkeys yet.")).toBeVisible();
  await context.close();
});

for (const colorScheme of ["light", "dark"] as const) {
  test(`the sign-in, sign-up, invite and People pages have no serious accessibility violation (${colorScheme} scheme)`, async ({ browser }) => {
    const context = await browser.newContext({ colorScheme });
    const page = await context.newPage();
    await page.goto(`${server.base}/sign-in`);
    await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeVisible();
    await expectNoSeriousViolations(page, "sign-in page");
    await page.getByLabel("Email").fill("nobody@example.org");
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByText("Invalid email or password")).toBeVisible();
    await expectNoSeriousViolations(page, "sign-in page with its error");

    await page.goto(`${server.base}/sign-up`);
    await expect(page.getByRole("button", { name: "Create account" })).toBeVisible();
    await expectNoSeriousViolations(page, "sign-up page");
    await page.goto(`${server.base}/sign-up?invite=1`);
    await expectNoSeriousViolations(page, "an invite's sign-up page");

    await signIn(page, ADMIN);
    await page.goto(`${server.base}/admin/people`);
    await page.getByRole("button", { name: "Invite" }).click();
    await expect(page.getByLabel("Invite link")).toBeVisible();
    await expectNoSeriousViolations(page, "People page with an invite");
    await page.getByRole("button", { name: "Account" }).click();
    await expectNoSeriousViolations(page, "open account menu");
    await page.goto(`${server.base}/account/passkeys`);
    await expect(page.getByRole("button", { name: "Add a passkey" })).toBeVisible();
    await expectNoSeriousViolations(page, "Passkeys page");
    await context.close();
  });
}
