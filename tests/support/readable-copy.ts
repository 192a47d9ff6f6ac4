import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

// For a test that runs the project's scripts as another user. That user may
// not be able to enter the folder this checkout lives in (one made with
// `mktemp -d` is mode 700), so the scripts run from a copy every user can read:
// package.json, scripts/, lib/ and the packages the scripts import (the
// workspace's history package among them, with its migrations) with
// everything those depend on. No .env comes along.

const exec = promisify(execFile);
const repository = path.resolve(__dirname, "..", "..");
const PROJECT_FILES = ["package.json", "scripts", "lib"];

/** The folder of an installed package as Node finds it from `from`: the nearest node_modules up the tree. */
function locate(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (existsSync(path.join(candidate, "package.json"))) return candidate;
    if (dir === repository || dir === path.dirname(dir)) return undefined;
  }
}

/** `packages` and every package they depend on (optional and peer ones when installed), as installed folders. */
async function dependencyClosure(packages: string[]): Promise<string[]> {
  const found = new Set<string>();
  const queue = packages.map((name) => ({ name, from: repository }));
  for (let next = queue.shift(); next; next = queue.shift()) {
    const dir = locate(next.name, next.from);
    if (!dir) {
      if (packages.includes(next.name)) throw new Error(`${next.name} is not installed in ${repository}`);
      continue; // an optional or peer dependency that is not installed
    }
    if (found.has(dir)) continue;
    found.add(dir);
    const manifest = JSON.parse(await readFile(path.join(dir, "package.json"), "utf8"));
    const names = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies });
    queue.push(...names.map((name) => ({ name, from: dir })));
  }
  return [...found];
}

/** A new folder every user can read, holding the project's scripts and the installed `packages` they import. */
export async function readableProjectCopy(packages: string[]): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "threadline-readable-"));
  for (const entry of PROJECT_FILES) await cp(path.join(repository, entry), path.join(dir, entry), { recursive: true });
  for (const installed of await dependencyClosure(packages)) {
    // A workspace package is a link into packages/: the copy holds its files.
    await cp(installed, path.join(dir, path.relative(repository, installed)), { recursive: true, dereference: true });
  }
  // Copies keep the files' modes, and a private umask may have made them unreadable to others.
  await exec("chmod", ["-R", "a+rX", dir]);
  return dir;
}
