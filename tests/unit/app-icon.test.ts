import { getRewrittenUrl, unstable_doesMiddlewareMatch, unstable_getResponseFromNextConfig } from "next/experimental/testing/server";
import { describe, expect, it } from "vitest";
import appleIcon, { size as appleSize } from "@/app/apple-icon";
import icon, { generateImageMetadata } from "@/app/icon";
import manifest from "@/app/manifest";
import nextConfig from "@/next.config";
import { config as proxyConfig } from "@/proxy";
import { pngPixels, pngSize } from "../support/png";

// The app icon and the web app manifest: what a browser tab and a phone's
// home screen show, drawn by the real icon routes.

describe("the web app manifest", () => {
  it("names the app, gives its colours and icons a home screen can use", () => {
    const m = manifest();
    expect(m).toMatchObject({ name: "Threadline", short_name: "Threadline", start_url: "/", display: "standalone" });
    expect(m.background_color).toMatch(/^#[0-9a-f]{6}$/);
    expect(m.theme_color).toMatch(/^#[0-9a-f]{6}$/);
    // Chromium's install prompt wants 192 and 512 pixel PNGs; Android's launcher a maskable one.
    const icons = m.icons ?? [];
    for (const size of ["192x192", "512x512"]) {
      expect(icons.filter((i) => i.sizes === size && i.type === "image/png").map((i) => i.purpose).sort()).toEqual(["any", "maskable"]);
    }
    // Every icon it names is one the icon route draws, at the size it says.
    const drawn = generateImageMetadata();
    for (const entry of icons) {
      const id = entry.src.replace(/^\/icon\//, "");
      const meta = drawn.find((d) => d.id === id);
      expect(meta, entry.src).toBeDefined();
      expect(`${meta!.size.width}x${meta!.size.height}`).toBe(entry.sizes);
      expect(meta!.contentType).toBe(entry.type);
    }
  });
});

describe("the icons", () => {
  it("are PNGs of the sizes their links declare", async () => {
    for (const { id, size } of generateImageMetadata()) {
      const response = await icon({ id: Promise.resolve(id) });
      expect(response.headers.get("content-type")).toBe("image/png");
      expect(await pngSize(response)).toEqual(size);
    }
    const apple = appleIcon();
    expect(await pngSize(apple)).toEqual(appleSize);
  });

  it("draw the light thread on the dark ground, opaque to the corner where a launcher crops it", async () => {
    const tab = await pngPixels(await icon({ id: Promise.resolve("32") }));
    expect(tab.at(16, 4), "ground").toBe("#171717");
    expect(tab.at(15, 10), "the thread's first line").toBe("#fafafa");
    const home = await pngPixels(appleIcon());
    expect(home.at(0, 0), "no rounded corner of its own").toBe("#171717");
  });
});

describe("serving them", () => {
  it("/favicon.ico, asked for by browsers that do not read the page, is the tab icon", async () => {
    const response = await unstable_getResponseFromNextConfig({ url: "http://localhost/favicon.ico", nextConfig });
    expect(getRewrittenUrl(response)).toBe("http://localhost/icon/32");
  });

  it("the proxy leaves the icons and the manifest alone (no identity minted, no limit counted), and still runs for pages and the API", () => {
    const runs = (path: string) => unstable_doesMiddlewareMatch({ config: proxyConfig, url: path });
    for (const path of ["/favicon.ico", "/icon/32", "/icon/512", "/apple-icon", "/manifest.webmanifest"]) expect(runs(path), path).toBe(false);
    for (const path of ["/", "/c/123", "/link", "/api/threads"]) expect(runs(path), path).toBe(true);
  });
});
