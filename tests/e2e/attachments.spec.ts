import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { MOCK_MODEL_URL } from "../../scripts/e2e-env.mjs";
import { solidPng, textPdf } from "../support/files";
import { composer, expectReplyFinished, lastReply, sendButton, uniqueToken, userMessages } from "./helpers";

// Files in the composer: pasted, dropped or picked, each uploaded at once
// with its progress, refused with the server's own words when it cannot be
// attached, then carried by the message, shown in the thread and given to the
// model (as an image to one that sees images).

const tray = (page: Page) => page.getByRole("list", { name: "Attached files" });
const chip = (page: Page, name: string) => tray(page).getByRole("listitem").filter({ hasText: name });

type Recorded = { model: string; messages: { role: string; content: string | { type: string; text?: string; image_url?: { url: string } }[] }[] };
/** The last request the mock model had that holds `token` (a title request may have come after it). */
async function modelRequestWith(page: Page, token: string): Promise<Recorded> {
  const recorded = (await (await page.request.get(`${MOCK_MODEL_URL}/__requests`)).json()) as Recorded[];
  const found = recorded.findLast((request) => request.messages.some((m) => m.role === "user" && Array.isArray(m.content) && JSON.stringify(m.content).includes(token)));
  expect(found, `a model request with ${token}`).toBeDefined();
  return found!;
}

/** Picks files through the composer's Attach files button, as a person does. */
async function attach(page: Page, files: { name: string; mimeType: string; buffer: Buffer }[]) {
  const chooser = page.waitForEvent("filechooser");
  await page.getByRole("button", { name: "Attach files" }).click();
  await (await chooser).setFiles(files);
}

/** Hands the page a file the way the clipboard or a drop does: a DataTransfer holding it, on `target`. */
async function fileEvent(page: Page, kind: "paste" | "drop", selector: string, file: { name: string; type: string; bytes: Buffer }) {
  await page.evaluate(
    ({ kind, selector, name, type, base64 }) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], name, { type }));
      const target = document.querySelector(selector)!;
      if (kind === "paste") target.dispatchEvent(new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }));
      else {
        target.dispatchEvent(new DragEvent("dragover", { dataTransfer: transfer, bubbles: true, cancelable: true }));
        target.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
      }
    },
    { kind, selector, name: file.name, type: file.type, base64: file.bytes.toString("base64") },
  );
}

test("a pasted image shows in the thread and reaches the model that sees images as an image; the page warns before it goes to one that does not", async ({ page }) => {
  await page.goto("/");
  const png = solidPng("#cc3300", 8, 8);
  await fileEvent(page, "paste", 'textarea[aria-label="Message"]', { name: "screenshot.png", type: "image/png", bytes: png });
  await expect(chip(page, "screenshot.png")).toHaveAttribute("data-attachment-state", "ready");

  // The other model cannot see images: the page says so while the image waits.
  const picker = page.getByRole("combobox", { name: "Model" });
  await picker.selectOption({ label: "Mock model B" });
  await expect(page.getByText("Mock model B cannot see images: it is told each image's name, type and size only.")).toBeVisible();
  await picker.selectOption({ label: "Mock model" });
  await expect(page.getByText("cannot see images")).toBeHidden();

  const token = uniqueToken();
  await composer(page).fill(`What colour is this? ${token}`);
  await composer(page).press("Enter");
  await expectReplyFinished(page);
  await expect(tray(page)).toBeHidden();
  const image = userMessages(page).last().getByRole("img", { name: "screenshot.png" });
  await expect(image).toBeVisible();
  expect(await image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(8);

  const sent = await modelRequestWith(page, token);
  const user = sent.messages.filter((m) => m.role === "user").at(-1)!;
  const parts = user.content as { type: string; text?: string; image_url?: { url: string } }[];
  expect(parts[0]).toEqual({ type: "text", text: `What colour is this? ${token}` });
  expect(parts.find((p) => p.type === "image_url")?.image_url?.url).toBe(`data:image/png;base64,${png.toString("base64")}`);

  // As the server sends it to the browser: its own type, never sniffed, in a sandbox.
  const served = await page.request.get((await image.getAttribute("src"))!);
  expect(served.headers()["content-type"]).toBe("image/png");
  expect(served.headers()["x-content-type-options"]).toBe("nosniff");
  expect(served.headers()["content-security-policy"]).toBe("default-src 'none'; sandbox; frame-ancestors 'none'");

  // After a reload the thread still shows it, read back from the server.
  await page.reload();
  await expect(userMessages(page).last().getByRole("img", { name: "screenshot.png" })).toBeVisible();
});

test("a dropped PDF shows its upload's progress, then goes with the message as a chip that downloads it", async ({ page }) => {
  await page.goto("/");
  // A slow uplink, so the progress can be seen: about 300 KB/s.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 300 * 1024 });
  const pdf = Buffer.concat([textPdf("Dropped report"), Buffer.from(`\n%${"x".repeat(900 * 1024)}\n`)]);
  await fileEvent(page, "drop", "form", { name: "report.pdf", type: "application/pdf", bytes: pdf });
  const progress = page.getByRole("progressbar", { name: "Uploading report.pdf" });
  await expect(progress).toBeVisible();
  await expect(sendButton(page)).toBeDisabled();
  await expect.poll(async () => Number(await progress.getAttribute("aria-valuenow")), { timeout: 10_000 }).toBeGreaterThan(0);
  await expect(chip(page, "report.pdf")).toHaveAttribute("data-attachment-state", "ready", { timeout: 30_000 });
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });

  const token = uniqueToken();
  await composer(page).fill(`Summarize the report ${token}`);
  await composer(page).press("Enter");
  await expectReplyFinished(page);
  const link = userMessages(page).last().getByRole("link", { name: /report\.pdf/ });
  await expect(link).toContainText("PDF");
  await expect(link).toHaveAttribute("download", "report.pdf");
  const sent = JSON.stringify((await modelRequestWith(page, token)).messages);
  expect(sent).toContain("Dropped report");
  await expect(lastReply(page)).toBeVisible();
});

test("a file that cannot be attached is refused in the composer with the server's words, and a sixth file with the limit's; the message goes without them", async ({ page }) => {
  await page.goto("/");
  await attach(page, [{ name: "cat.png", mimeType: "image/png", buffer: Buffer.from("<script>alert(1)</script>") }]);
  await expect(chip(page, "cat.png")).toHaveAttribute("data-attachment-state", "failed");
  await expect(chip(page, "cat.png")).toContainText("cat.png is named as a .png file, but its bytes are text: it was not attached.");

  await attach(page, [1, 2, 3, 4, 5, 6].map((n) => ({ name: `note-${n}.txt`, mimeType: "text/plain", buffer: Buffer.from(`note ${n} ${uniqueToken()}`) })));
  await expect(chip(page, "note-6.txt")).toContainText("A message carries at most 5 files.");
  await expect(tray(page).locator('[data-attachment-state="ready"]')).toHaveCount(5);

  // Removed by keyboard: the refused ones go, the five stay and go with the message.
  await chip(page, "cat.png").getByRole("button", { name: "Remove cat.png" }).focus();
  await page.keyboard.press("Enter");
  await expect(chip(page, "cat.png")).toHaveCount(0);
  await composer(page).fill(`Five notes ${uniqueToken()}`);
  await composer(page).press("Enter");
  await expectReplyFinished(page);
  await expect(userMessages(page).last().getByRole("link")).toHaveCount(5);
});

test("by keyboard alone: Attach files is reachable and named, chips are removable, and the composer with files has no serious accessibility violation", async ({ page }) => {
  await page.goto("/");
  await composer(page).focus();
  await page.keyboard.press("Shift+Tab");
  await expect(page.getByRole("button", { name: "Attach files" })).toBeFocused();
  const chooser = page.waitForEvent("filechooser");
  await page.keyboard.press("Enter");
  await (await chooser).setFiles([{ name: "plan.md", mimeType: "text/markdown", buffer: Buffer.from("# Plan\n- one") }]);
  await expect(chip(page, "plan.md")).toHaveAttribute("data-attachment-state", "ready");
  await expect(chip(page, "plan.md")).toContainText("12 bytes");

  const { violations } = await new AxeBuilder({ page }).include("form").analyze();
  expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);

  await chip(page, "plan.md").getByRole("button", { name: "Remove plan.md" }).focus();
  await page.keyboard.press("Enter");
  await expect(tray(page)).toBeHidden();
});
