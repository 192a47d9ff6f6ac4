// What the browser's code may import. lib/client, lib/protocol and components
// (and any "use client" module) end up in the browser's bundle, with all they
// import: a server module there would carry SQL, secrets or Node-only code to
// the client, or fail the build. The response types they need live in
// lib/protocol, so none of them has a reason to reach into the server's folders.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { forbiddenPaths, root, sourceFiles } from "../support/import-graph";

const SERVER_FOLDERS = ["lib/threads/", "packages/history/src/postgres", "packages/history/src/migrate", "lib/db/", "lib/auth/", "lib/agent/", "lib/runtime/"];
const isServerOnly = (module: string) => module === "server-only" || SERVER_FOLDERS.some((folder) => module.startsWith(folder));

const useClient = (file: string) => /^\s*["']use client["']/.test(readFileSync(path.join(root, file), "utf8"));

const browserFiles = [
  ...new Set([
    ...["lib/client", "lib/protocol", "components"].flatMap(sourceFiles),
    ...["app", "lib"].flatMap(sourceFiles).filter(useClient),
  ]),
];

describe("the browser's code", () => {
  it("is found where it lives", () => {
    expect(browserFiles).toContain("lib/client/api.ts");
    expect(browserFiles).toContain("lib/protocol/parts-codec.ts");
    expect(browserFiles).toContain("components/chat/ChatView.tsx");
  });

  it("reaches no server-only module, directly or through another import", () => {
    expect(browserFiles.flatMap((file) => forbiddenPaths(file, isServerOnly))).toEqual([]);
  });

  it("would be caught reaching one: the server's own modules do", () => {
    expect(forbiddenPaths("lib/threads/signed-page.ts", isServerOnly)).toContain("lib/threads/signed-page.ts → server-only");
    expect(forbiddenPaths("app/(chat)/c/[threadId]/page.tsx", isServerOnly).length).toBeGreaterThan(0);
  });
});

describe("the page's bundle", () => {
  // lib/protocol's wire schemas are zod, for the routes; the page reads what it needs from their zod-free siblings.
  const bundled = browserFiles.filter((file) => !file.startsWith("lib/protocol/"));
  const isZod = (module: string) => module === "zod" || module.startsWith("zod/");

  it("takes no zod with it: about 33 KB of the page's JavaScript, gzipped, that the page never calls", () => {
    expect(bundled.flatMap((file) => forbiddenPaths(file, isZod, { values: true }))).toEqual([]);
  });

  it("would be caught taking it: a module of wire schemas does, and a type-only import of one does not", () => {
    expect(forbiddenPaths("lib/protocol/files.ts", isZod, { values: true })).toContain("lib/protocol/files.ts → zod");
    expect(forbiddenPaths("lib/protocol/parts-codec.ts", isZod, { values: true })).toEqual([]);
    expect(forbiddenPaths("lib/protocol/parts-codec.ts", isZod).length).toBeGreaterThan(0);
  });
});

describe("the workspace's packages", () => {
  const packageFiles = sourceFiles("packages").filter((file) => !file.includes("/dist/") && !file.endsWith("build.mjs"));
  const app = (module: string) => /^(app|lib|components|scripts)\//.test(module);

  it("are found where they live", () => {
    expect(packageFiles).toContain("packages/history/src/postgres.ts");
    expect(packageFiles).toContain("packages/agentkit-history/src/index.ts");
  });

  it("import nothing from the app: the app depends on them, never the other way", () => {
    expect(packageFiles.flatMap((file) => forbiddenPaths(file, app))).toEqual([]);
  });

  it("would be caught importing from it: the app's own modules do", () => {
    expect(forbiddenPaths("lib/agent/turn/turn.ts", app).length).toBeGreaterThan(0);
  });
});

describe("a route's schema", () => {
  it("is its route's own: nothing outside app/api imports from there (the contract they share is lib/protocol)", () => {
    const outside = ["app", "lib", "components"].flatMap(sourceFiles).filter((file) => !file.startsWith("app/api/"));
    const reaching = outside.flatMap((file) => forbiddenPaths(file, (module) => module.startsWith("app/api/")));
    expect(reaching).toEqual([]);
  });
});
