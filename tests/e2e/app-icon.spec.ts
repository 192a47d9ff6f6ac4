import { expect, test, type Response } from "@playwright/test";

// The icon a browser tab shows and what a phone needs to put the app on its
// home screen, on the production build, under the page's Content-Security-Policy.

test("the first page loads without a missing file, and links an icon, a home-screen icon and a manifest that are served", async ({ page, baseURL }) => {
  const failed: string[] = [];
  const record = (response: Response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
  };
  page.on("response", record);
  const refused: string[] = [];
  page.on("console", (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) refused.push(message.text());
  });
  await page.goto("/");
  await page.waitForLoadState("networkidle");

  const links = await page.locator('link[rel="icon"], link[rel="apple-touch-icon"], link[rel="manifest"]').evaluateAll((nodes) =>
    nodes.map((node) => ({ rel: node.getAttribute("rel")!, href: (node as HTMLLinkElement).href, type: node.getAttribute("type") })),
  );
  expect(links.filter((l) => l.rel === "icon").length).toBeGreaterThan(0);
  expect(links.filter((l) => l.rel === "apple-touch-icon")).toHaveLength(1);
  expect(links.filter((l) => l.rel === "manifest")).toHaveLength(1);

  for (const link of links) {
    const response = await page.request.get(link.href);
    expect(response.status(), link.href).toBe(200);
    const type = response.headers()["content-type"];
    if (link.rel === "manifest") expect(type, link.href).toMatch(/^application\/manifest\+json/);
    else expect(type, link.href).toBe(link.type ?? "image/png");
  }

  // What a browser asks for when it does not read the page (a JSON response opened in a tab).
  const favicon = await page.request.get(`${baseURL}/favicon.ico`);
  expect(favicon.status()).toBe(200);
  expect(favicon.headers()["content-type"]).toMatch(/^image\//);

  // Chromium fetches and parses the manifest as it would to install the app, under the page's policy.
  const cdp = await page.context().newCDPSession(page);
  const manifest = await cdp.send("Page.getAppManifest");
  expect(manifest.errors).toEqual([]);
  const parsed = JSON.parse(manifest.data ?? "null") as { name: string; short_name: string; icons: { src: string; type: string }[] };
  expect(parsed).toMatchObject({ name: "Threadline", short_name: "Threadline" });
  for (const icon of parsed.icons) {
    const response = await page.request.get(new URL(icon.src, baseURL).href);
    expect(response.status(), icon.src).toBe(200);
    expect(response.headers()["content-type"], icon.src).toBe(icon.type);
  }

  expect(failed).toEqual([]);
  expect(refused).toEqual([]);
});
