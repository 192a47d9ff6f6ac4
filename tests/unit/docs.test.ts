import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import GithubSlugger from "github-slugger";
import type { Heading, Root, Table } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { toString } from "mdast-util-to-string";
import { gfm } from "micromark-extension-gfm";
import { visit } from "unist-util-visit";
import { describe, expect, it } from "vitest";
import { ENV_NAMES } from "@/lib/settings";

// The README and the pages under docs/ are read as GitHub renders them: every
// link between them must reach a file, and a heading of it when it names one,
// and the configuration page's table must name what lib/settings.ts reads.

const root = path.resolve(__dirname, "../..");

const parsed = new Map<string, Root>();
function parse(file: string): Root {
  const cached = parsed.get(file);
  if (cached) return cached;
  const tree = fromMarkdown(readFileSync(path.join(root, file), "utf8"), { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  parsed.set(file, tree);
  return tree;
}

/** The anchors GitHub gives a file's headings (a repeated heading gets -1, -2, …). */
function anchors(tree: Root): Set<string> {
  const slugger = new GithubSlugger();
  const found = new Set<string>();
  visit(tree, "heading", (heading: Heading) => void found.add(slugger.slug(toString(heading))));
  return found;
}

const pages = readdirSync(path.join(root, "docs"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => `docs/${name}`);
const packageReadmes = readdirSync(path.join(root, "packages"))
  .map((name) => `packages/${name}/README.md`)
  .filter((file) => existsSync(path.join(root, file)));
const documents = ["README.md", ...pages, ...packageReadmes];

interface Link {
  from: string;
  url: string;
}

function links(file: string): Link[] {
  const found: Link[] = [];
  visit(parse(file), (node) => {
    if (node.type === "link" || node.type === "image" || node.type === "definition") found.push({ from: file, url: node.url });
  });
  return found;
}

/** Why a link does not resolve, or null when it does. */
function broken({ from, url }: Link): string | null {
  if (/^(https?:|mailto:)/.test(url)) return null;
  const [target, hash] = url.split("#", 2);
  const file = target ? path.posix.normalize(path.posix.join(path.posix.dirname(from), decodeURIComponent(target))) : from;
  if (file.startsWith("..")) return `${from}: ${url} leaves the repository`;
  if (!existsSync(path.join(root, file))) return `${from}: ${url}: no file ${file}`;
  if (hash === undefined) return null;
  if (!file.endsWith(".md")) return `${from}: ${url}: a heading of a file that is not markdown`;
  return anchors(parse(file)).has(hash) ? null : `${from}: ${url}: ${file} has no heading #${hash}`;
}

describe("the README and docs/", () => {
  it("hold links that all resolve to a file, and to a heading of it when they name one", () => {
    const all = documents.flatMap(links);
    expect(all.filter((link) => !/^https?:/.test(link.url)).length).toBeGreaterThan(30);
    expect(all.map(broken).filter(Boolean)).toEqual([]);
  });

  it("find a broken link and a missing heading (the check itself)", () => {
    expect(broken({ from: "README.md", url: "docs/no-such-page.md" })).toContain("no file docs/no-such-page.md");
    expect(broken({ from: "README.md", url: "docs/configuration.md#no-such-heading" })).toContain("has no heading #no-such-heading");
    expect(broken({ from: "docs/inngest.md", url: "configuration.md#every-variable" })).toBeNull();
    expect(broken({ from: "docs/http-api.md", url: "#routes" })).toBeNull();
  });

  it("every page under docs/ is linked from the README", () => {
    const linked = new Set(links("README.md").map(({ url }) => url.split("#")[0]));
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
    expect(pages.length).toBeGreaterThanOrEqual(7);
  });

  it("the README's first screen is the quick start, and it names no route of the wire protocol", () => {
    const readme = readFileSync(path.join(root, "README.md"), "utf8");
    expect(readme.indexOf("## Quick start")).toBeGreaterThan(0);
    expect(readme.split("\n").findIndex((line) => line === "## Quick start")).toBeLessThan(15);
    expect(readme).not.toMatch(/data-signatures|data-compacted|\/api\/threads\/:id/);
  });
});

describe("docs/configuration.md", () => {
  it("lists in its table exactly the variables lib/settings.ts reads", () => {
    const tree = parse("docs/configuration.md");
    const tables: Table[] = [];
    visit(tree, "table", (table: Table) => void tables.push(table));
    expect(tables).toHaveLength(1);
    const names = tables[0].children.slice(1).flatMap((row) => {
      const cell = row.children[0];
      const codes: string[] = [];
      visit(cell, "inlineCode", (code) => void codes.push(code.value));
      return codes;
    });
    expect(names.every((name) => /^[A-Z][A-Z0-9_]+$/.test(name))).toBe(true);
    expect([...new Set(names)].sort()).toEqual(ENV_NAMES.filter((name) => name !== "NODE_ENV").sort());
    expect(names).toHaveLength(new Set(names).size);
  });
});

describe("docs/architecture.md's map of the concepts", () => {
  /** The paths the "Where each concept lives" table names. */
  function mapped(): string[] {
    const tree = parse("docs/architecture.md");
    const at = tree.children.findIndex((node) => node.type === "heading" && toString(node) === "Where each concept lives");
    const table = tree.children.slice(at).find((node): node is Table => node.type === "table");
    if (at < 0 || !table) throw new Error("no table under 'Where each concept lives'");
    return table.children.slice(1).flatMap((row) => {
      const codes: string[] = [];
      visit(row.children[1], "inlineCode", (code) => void codes.push(code.value));
      return codes;
    });
  }

  function folders(dir: string): string[] {
    return readdirSync(path.join(root, dir))
      .filter((name) => statSync(path.join(root, dir, name)).isDirectory())
      .flatMap((name) => [`${dir}/${name}`, ...folders(`${dir}/${name}`)]);
  }

  it("names paths that all exist", () => {
    const paths = mapped();
    expect(paths.length).toBeGreaterThan(40);
    expect(paths.filter((p) => !existsSync(path.join(root, p)))).toEqual([]);
  });

  it("has every folder of lib/ and every package in it", () => {
    const paths = mapped();
    const all = [...folders("lib"), ...readdirSync(path.join(root, "packages")).map((name) => `packages/${name}`)];
    expect(all).toContain("lib/agent/turn");
    expect(all.filter((dir) => !paths.some((p) => p === `${dir}/` || p.startsWith(`${dir}/`)))).toEqual([]);
  });
});
