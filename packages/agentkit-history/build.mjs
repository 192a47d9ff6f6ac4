// Builds the package over the history package's adapter (one implementation,
// two faces): esbuild bundles src/index.ts and the @threadline/history files it
// imports into dist/index.js, with "server-only" (a Next.js guard) left out; TypeScript declares dist/*.d.ts from the package's
// own sources only; the migrations are copied beside it for migrate().
import { cp, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import ts from "typescript";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..", "..");
const dist = path.join(here, "dist");
const src = path.join(here, "src");

// The package's peers: the AgentKit app installs them (and AgentKit's own peers).
const EXTERNAL = ["pg", "@inngest/agent-kit", "inngest", "zod"];

/** "server-only" throws outside React Server Components; the package runs in any Node process. */
const noServerOnly = {
  name: "no-server-only",
  setup(build) {
    build.onResolve({ filter: /^server-only$/ }, () => ({ path: "server-only", namespace: "empty" }));
    build.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "", loader: "js" }));
  },
};

async function bundle() {
  await esbuild.build({
    entryPoints: [path.join(src, "index.ts")],
    outfile: path.join(dist, "index.js"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    tsconfig: path.join(root, "tsconfig.json"),
    external: EXTERNAL,
    plugins: [noServerOnly],
    logLevel: "warning",
  });
}

/** dist/index.d.ts and dist/types.d.ts, declared by TypeScript with the root tsconfig's settings. */
async function declare() {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(root, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const options = { ...config.options, noEmit: false, declaration: true, emitDeclarationOnly: true, incremental: false, outDir: path.join(here, ".declarations"), rootDir: root };
  const program = ts.createProgram([path.join(src, "index.ts")], options);
  const written = new Map();
  const result = program.emit(undefined, (file, text) => {
    const relative = path.relative(path.join(options.outDir, "packages", "agentkit-history", "src"), file);
    if (!relative.startsWith("..")) written.set(relative, text);
  });
  const errors = ts.getPreEmitDiagnostics(program).concat(result.diagnostics).filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errors.length > 0) throw new Error(ts.formatDiagnostics(errors, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => "\n" }));
  const declarations = ["index.d.ts", "types.d.ts"];
  for (const name of declarations) {
    const text = written.get(name);
    if (!text) throw new Error(`TypeScript declared no ${name}`);
    // The public declarations name the package's own files and its peers only (the history package is bundled, not a dependency).
    if (/from "\.\.\//.test(text) || /from "@\//.test(text) || /from "@threadline\//.test(text)) throw new Error(`${name} reaches outside the package:\n${text}`);
    await writeFile(path.join(dist, name), text);
  }
}

async function copyMigrations() {
  for (const [from, to] of [
    [path.join(root, "packages", "history", "db", "migrations"), path.join(dist, "migrations")],
    [path.join(root, "packages", "history", "db", "functions"), path.join(dist, "functions")],
  ]) {
    await mkdir(to, { recursive: true });
    for (const name of await readdir(from)) if (name.endsWith(".sql")) await cp(path.join(from, name), path.join(to, name));
  }
}

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
await bundle();
await declare();
await copyMigrations();
