// Where a server's CPU went, from the profile `node --cpu-prof` wrote at exit:
// self time per package. The app's server code runs from Next's bundled
// chunks, so each sampled function is mapped back through the chunk's source
// map to the file it came from (node_modules/<package>/… or this project's
// own folders).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Self time by package, largest first: `{ group, ms, share }` (share of the
 * busy time; idle excluded). `root` is the checkout: the chunks' maps are in
 * its .next folder, the standalone server runs copies of those chunks.
 * `window` keeps only the samples taken between two readings of
 * monotonicMicros() (in any process of this machine), e.g. a load phase
 * without the server's start-up.
 */
export function cpuByPackage(profileFile, root, window = {}) {
  return selfTimeBy(profileFile, root, window, (frame, maps) => groupOf(frame, maps, root));
}

/**
 * Self time by function, largest first: `{ name, ms, share }`, each named by
 * its package (as cpuByPackage groups) and its original source's function
 * and file:line where a source map knows them.
 */
export function cpuByFunction(profileFile, root, window = {}) {
  return selfTimeBy(profileFile, root, window, (frame, maps) => {
    const group = groupOf(frame, maps, root);
    if (group === null || !frame.url) return group;
    const file = frame.url.startsWith("file:") ? fileURLToPath(frame.url) : frame.url;
    const entry = maps.entry(file, frame.lineNumber, frame.columnNumber);
    const where = entry?.originalSource
      ? `${entry.originalSource.replace(/^.*node_modules\//, "").replace(/^turbopack:\/\/\/\[project\]\//, "")}:${entry.originalLine + 1}`
      : `${path.basename(file)}:${frame.lineNumber + 1}`;
    return `${group} · ${entry?.name ?? frame.functionName ?? "(anonymous)"} · ${where}`;
  }).map(({ group, ...rest }) => ({ name: group, ...rest }));
}

function selfTimeBy(profileFile, root, window, keyOf) {
  const profile = JSON.parse(readFileSync(profileFile, "utf8"));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const { from = -Infinity, to = Infinity } = window;
  const selfUs = new Map();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at < from || at > to) return;
    // A sample's time is the gap to the next one (the last sample gets its own gap).
    const us = profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + us);
  });
  const maps = new SourceMaps(root);
  const groups = new Map();
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const group = keyOf(nodes.get(id).callFrame, maps);
    if (group === null) continue;
    busyUs += us;
    groups.set(group, (groups.get(group) ?? 0) + us);
  }
  return [...groups]
    .map(([group, us]) => ({ group, ms: us / 1000, share: busyUs ? us / busyUs : 0 }))
    .sort((a, b) => b.ms - a.ms);
}

/**
 * Now, on the clock a CPU profile's times use. V8 and libuv both read the
 * system's monotonic clock on Linux, so a reading here brackets samples taken
 * in another process.
 */
export const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

/** The package a sampled frame belongs to; null for idle time. */
function groupOf({ functionName, url, lineNumber, columnNumber }, maps, root) {
  if (!url) {
    if (functionName === "(idle)") return null;
    if (functionName === "(garbage collector)") return "(garbage collection)";
    // (program): V8 and native code outside any JavaScript function (I/O, the event loop, compiling).
    return "(native: V8, libuv, I/O)";
  }
  if (url.startsWith("node:")) return `node: ${builtinOf(url)}`;
  if (url.startsWith("wasm:")) return "(WebAssembly)";
  const file = url.startsWith("file:") ? fileURLToPath(url) : url;
  const source = maps.originalSource(file, lineNumber, columnNumber) ?? file;
  return packageOf(source, root);
}

/** node:internal/webstreams/readablestream → webstreams; node:_http_server → http; node:events → events. */
function builtinOf(url) {
  const name = url.slice("node:".length);
  if (name.startsWith("internal/deps/")) return name.split("/")[2];
  if (name.startsWith("internal/")) return name.split("/")[1].replace(/\.js$/, "");
  return name.startsWith("_") ? name.slice(1).split("_")[0] : name.split("/")[0];
}

/** `node_modules/<package>` (scoped too) or this project's folder (`lib/agent`, `app/api`…). */
export function packageOf(source, root) {
  const normalized = decodeURIComponent(source).replaceAll("\\", "/");
  const inModules = normalized.lastIndexOf("node_modules/");
  if (inModules !== -1) {
    const rest = normalized.slice(inModules + "node_modules/".length);
    const [first, second] = rest.split("/");
    if (first === "src") return shippedIn(normalized.slice(0, inModules + "node_modules".length), rest) ?? "(a package's own sources)";
    return first.startsWith("@") ? `${first}/${second}` : first;
  }
  const relative = path.relative(root, normalized).replaceAll("\\", "/");
  if (relative.startsWith("..") || path.isAbsolute(relative)) return normalized;
  // Turbopack's runtime and any chunk code without a map.
  if (relative.startsWith(".next/")) return "next";
  const [top, sub] = relative.split("/");
  return sub && !sub.includes(".") ? `threadline ${top}/${sub}` : `threadline ${top}`;
}

const shippedInCache = new Map();

/**
 * Some packages (inngest) ship maps that name their TypeScript sources one
 * folder too high (node_modules/src/…): the package is the one whose folder
 * holds the compiled file of that source.
 */
function shippedIn(modules, rest) {
  const compiled = rest.slice("src/".length).replace(/\.ts$/, ".js");
  if (!shippedInCache.has(compiled)) {
    const packages = readdirSync(modules).flatMap((name) =>
      name.startsWith("@") ? readdirSync(path.join(modules, name)).map((inner) => `${name}/${inner}`) : [name],
    );
    shippedInCache.set(compiled, packages.find((name) => existsSync(path.join(modules, name, compiled))));
  }
  return shippedInCache.get(compiled);
}

class SourceMaps {
  #root;
  #byFile = new Map();

  constructor(root) {
    this.#root = root;
  }

  /** The map's entry for a position of a bundled file (originalSource, originalLine, name), when the file has a map. */
  entry(file, line, column) {
    return this.#map(file)?.findEntry(line, column);
  }

  /** The absolute path of the source a position of a bundled file came from, when the file has a map. */
  originalSource(file, line, column) {
    const entry = this.#map(file)?.findEntry(line, column);
    if (!entry?.originalSource) return undefined;
    const source = entry.originalSource;
    if (source.startsWith("turbopack:///[project]/")) return path.join(this.#root, source.slice("turbopack:///[project]/".length));
    if (source.startsWith("file://")) return fileURLToPath(source);
    return path.resolve(path.dirname(this.#mapFileOf(file)), source);
  }

  #mapFileOf(file) {
    // The standalone server runs copies of .next/server; the maps stay beside the originals.
    const own = `${file}.map`;
    if (existsSync(own)) return own;
    const standalone = path.join(this.#root, ".next", "standalone", ".next") + path.sep;
    return file.startsWith(standalone) ? path.join(this.#root, ".next", file.slice(standalone.length)) + ".map" : own;
  }

  #map(file) {
    if (!this.#byFile.has(file)) {
      const mapFile = this.#mapFileOf(file);
      let map;
      try {
        map = existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, "utf8"))) : undefined;
      } catch {
        map = undefined;
      }
      this.#byFile.set(file, map);
    }
    return this.#byFile.get(file);
  }
}
