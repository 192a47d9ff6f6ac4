import { readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { WINGS } from "@/lib/wings";
import type { Wing } from "@/lib/wing";

const root = process.cwd();

/** Every source file under `dir`, relative to the root. */
function sources(dir: string): string[] {
  if (!existsSync(path.join(root, dir))) return [];
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    const relative = `${dir}/${name}`;
    if (statSync(path.join(root, relative)).isDirectory()) return sources(relative);
    return /\.(ts|tsx|mts|mjs)$/.test(name) ? [relative] : [];
  });
}

/** Where SQL names a table: after FROM, JOIN, INTO, UPDATE or TABLE. */
const namesTable = (text: string, table: string) => new RegExp(`\\b(FROM|JOIN|INTO|UPDATE|TABLE)\\s+${table}\\b`, "i").test(text);

// A wing (lib/wing.ts) is a folder with a wing.ts and a line in lib/wings.ts;
// its tables are its own: no other module of the app names them, so a
// feature's rows change in one place.
describe("the wings", () => {
  const declared = sources("lib").filter((file) => path.basename(file) === "wing.ts" && file !== "lib/wing.ts");

  it("are each a folder's wing.ts, every one of them in the list, once", async () => {
    expect(declared.length).toBeGreaterThanOrEqual(6);
    const listed = new Set<Wing>(WINGS);
    expect(listed.size).toBe(WINGS.length);
    for (const file of declared) {
      const module = (await import(`@/${file}`)) as Record<string, unknown>;
      const wings = Object.values(module).filter((value): value is Wing => WINGS.includes(value as Wing));
      expect(wings, `${file} exports a wing listed in lib/wings.ts`).toHaveLength(1);
    }
    expect(new Set(WINGS.map((wing) => wing.name)).size).toBe(WINGS.length);
  });

  it("own their tables: none is named outside its wing's folder and the history package", async () => {
    const folderOf = new Map<Wing, string>();
    for (const file of declared) {
      const module = (await import(`@/${file}`)) as Record<string, unknown>;
      for (const value of Object.values(module)) if (WINGS.includes(value as Wing)) folderOf.set(value as Wing, path.dirname(file));
    }
    const app = [...sources("lib"), ...sources("app"), ...sources("components"), ...sources("inngest"), "proxy.ts", "instrumentation.ts"];
    const trespass: string[] = [];
    for (const wing of WINGS) {
      const home = `${folderOf.get(wing)}/`;
      for (const file of app) {
        if (file.startsWith(home)) continue;
        const text = readFileSync(path.join(root, file), "utf8");
        for (const table of wing.tables) if (namesTable(text, table)) trespass.push(`${file} names ${wing.name}'s table ${table}`);
      }
    }
    expect(trespass).toEqual([]);
  });

  it("the check finds a table named outside its wing", () => {
    expect(namesTable("SELECT 1 FROM document_versions v", "document_versions")).toBe(true);
    expect(namesTable("JOIN reminders r ON", "reminders")).toBe(true);
    expect(namesTable("the reminders are listed", "reminders")).toBe(false);
  });
});
