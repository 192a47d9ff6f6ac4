// The repository's own import graph, read from the source text: which local
// modules a module imports (types included: a type import still ties the
// browser's code to a server module's file), followed transitively.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

export const root = path.resolve(__dirname, "../..");

const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;
const EXTENSIONS = ["", ".ts", ".tsx", ".mts", ".mjs", ".js", "/index.ts", "/index.tsx"];

/** Every source file under `dir` (repository-relative paths). */
export function sourceFiles(dir: string): string[] {
  const full = path.join(root, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full).flatMap((entry) => {
    const file = path.join(dir, entry);
    if (statSync(path.join(root, file)).isDirectory()) return sourceFiles(file);
    return SOURCE.test(entry) && !entry.endsWith(".d.ts") ? [file] : [];
  });
}

/**
 * What a module's import and export-from statements and dynamic imports name,
 * as written; with `values`, not those that import types only (erased from
 * the bundle).
 */
export function specifiersOf(source: string, { values = false } = {}): string[] {
  const fromStatements = [...source.matchAll(/\b(?:import|export)\s+(type\s+)?[^;"'`]*?\bfrom\s*["']([^"']+)["']/g)]
    .filter((match) => !values || match[1] === undefined)
    .map((match) => match[2]);
  const bare = [/\bimport\s*["']([^"']+)["']/g, /\bimport\(\s*["']([^"']+)["']\s*\)/g];
  return [...fromStatements, ...bare.flatMap((pattern) => [...source.matchAll(pattern)].map((match) => match[1]))];
}

/** The workspace's packages (packages/<name>), by the names they are imported under. */
const WORKSPACE = new Map(
  readdirSync(path.join(root, "packages")).flatMap((folder) => {
    const manifest = path.join(root, "packages", folder, "package.json");
    return existsSync(manifest) ? [[(JSON.parse(readFileSync(manifest, "utf8")) as { name: string }).name, `packages/${folder}/src`] as const] : [];
  }),
);

/** A workspace package's module as the file it is: the name alone is its index, a subpath the source file of that name. */
function workspaceBase(specifier: string): string | undefined {
  for (const [name, src] of WORKSPACE) {
    if (specifier === name) return `${src}/index`;
    if (specifier.startsWith(`${name}/`)) return `${src}/${specifier.slice(name.length + 1)}`;
  }
  return undefined;
}

/** A specifier as a repository-relative file, or the bare package name when it is not one of ours. */
export function resolve(from: string, specifier: string): { file: string } | { pkg: string } {
  let base: string;
  const workspace = workspaceBase(specifier);
  if (specifier.startsWith("@/")) base = specifier.slice(2);
  else if (specifier.startsWith(".")) base = path.join(path.dirname(from), specifier);
  else if (workspace !== undefined) base = workspace;
  else return { pkg: specifier };
  // An ES module's import of "./x.js" names the TypeScript file x.ts.
  if (base.endsWith(".js") && !existsSync(path.join(root, base))) base = base.slice(0, -".js".length);
  for (const extension of EXTENSIONS) {
    const candidate = base + extension;
    if (existsSync(path.join(root, candidate)) && statSync(path.join(root, candidate)).isFile()) return { file: candidate };
  }
  throw new Error(`${from} imports ${specifier}, which is not a file`);
}

/**
 * Every path from `start` through local imports to a module `forbidden`
 * refuses (a file or a package), each as "a → b → c". A refused module is not
 * followed further. With `values`, imports of types only are not followed.
 */
export function forbiddenPaths(start: string, forbidden: (module: string) => boolean, options: { values?: boolean } = {}): string[] {
  const found: string[] = [];
  const seen = new Set<string>([start]);
  const queue: string[][] = [[start]];
  for (let chain = queue.shift(); chain; chain = queue.shift()) {
    const file = chain[chain.length - 1];
    for (const specifier of specifiersOf(readFileSync(path.join(root, file), "utf8"), options)) {
      const target = resolve(file, specifier);
      const name = "file" in target ? target.file : target.pkg;
      if (forbidden(name)) {
        found.push([...chain, name].join(" → "));
      } else if ("file" in target && !seen.has(target.file)) {
        seen.add(target.file);
        queue.push([...chain, target.file]);
      }
    }
  }
  return found;
}
