import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmod, chown, cp, mkdir, readFile, readdir, stat } from "node:fs/promises";
import path from "node:path";
import ignore from "@balena/dockerignore";
import { cleanEnv } from "./fresh-copy";

// Replays a Dockerfile without a Docker engine: each stage's filesystem is a
// folder, COPY copies (from the build context filtered by .dockerignore, or
// from an earlier stage), RUN runs in the stage's WORKDIR with its ENV, and the
// last stage's CMD and HEALTHCHECK can be started. The host's Node stands in for
// the `node:` base image. An instruction or flag it does not know fails the
// replay, so the Dockerfile cannot drift away from what the tests prove.

/** The official node images run USER node as uid/gid 1000 with HOME /home/node. */
const KNOWN_USERS: Record<string, { uid: number; gid: number; home: string }> = {
  node: { uid: 1000, gid: 1000, home: "/home/node" },
};

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

interface Stage {
  name: string;
  image: string;
  instructions: Instruction[];
}

export interface Image {
  /** The final stage's filesystem root. */
  root: string;
  /** Its WORKDIR as a folder on this machine. */
  workdir: string;
  env: Record<string, string>;
  user?: string;
  cmd: string[];
  healthcheck?: string[];
  /** Paths (relative to the context) that COPY took from the build context, in every stage. */
  copiedFromContext: string[];
}

export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const start = i + 1;
    let line = lines[i].trim();
    if (!line || line.startsWith("#")) continue;
    while (line.endsWith("\\") && i + 1 < lines.length) line = `${line.slice(0, -1).trim()} ${lines[++i].trim()}`;
    const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(line)!;
    const instruction = { keyword: keyword.toUpperCase(), args, line: start };
    if (instruction.keyword === "FROM") {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!from) throw new Error(`Dockerfile line ${start}: cannot read FROM ${args}`);
      stages.push({ image: from[1], name: from[2] ?? String(stages.length), instructions: [] });
    } else {
      if (stages.length === 0) throw new Error(`Dockerfile line ${start}: ${keyword} before FROM`);
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return stages;
}

/** Words of a shell-form argument list, or the array of an exec-form one. */
function words(args: string): string[] {
  if (args.startsWith("[")) return JSON.parse(args) as string[];
  return args.split(/\s+/).filter(Boolean);
}

function flags(parts: string[]): { flags: Record<string, string>; rest: string[] } {
  const result: Record<string, string> = {};
  let i = 0;
  for (; i < parts.length && parts[i].startsWith("--"); i++) {
    const [name, value = ""] = parts[i].slice(2).split("=");
    result[name] = value;
  }
  return { flags: result, rest: parts.slice(i) };
}

function command(args: string): string[] {
  return args.startsWith("[") ? (JSON.parse(args) as string[]) : ["/bin/sh", "-c", args];
}

/** The environment of a RUN or CMD: the image's HOME and ENV layers, no variables of the machine running the tests. */
function imageEnv(home: string, ...layers: Record<string, string>[]): NodeJS.ProcessEnv {
  return cleanEnv(Object.assign({ HOME: home }, ...layers));
}

async function runShell(script: string, cwd: string, env: NodeJS.ProcessEnv, where: string): Promise<void> {
  const child = spawn("/bin/sh", ["-c", script], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  if (code !== 0) throw new Error(`${where}: RUN ${script} exited with ${code}:\n${output.slice(-4_000)}`);
}

/** Every file and folder of the context that .dockerignore lets through, relative to the context. */
async function contextEntries(context: string): Promise<Set<string>> {
  const rules = await readFile(path.join(context, ".dockerignore"), "utf8").catch(() => "");
  const ig = ignore().add(rules.split("\n"));
  const kept = new Set<string>();
  async function walk(relative: string) {
    for (const entry of await readdir(path.join(context, relative), { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (ig.ignores(child)) continue;
      kept.add(child);
      if (entry.isDirectory()) await walk(child);
    }
  }
  await walk("");
  return kept;
}

const isDir = (p: string) => stat(p).then((s) => s.isDirectory(), () => false);

/**
 * Builds every stage of `dockerfile` in folders under `workspace` and returns
 * the last one. `context` is the build context (the folder `docker build .` sends).
 */
export async function replayDockerfile(dockerfile: string, context: string, workspace: string): Promise<Image> {
  const stages = parseDockerfile(await readFile(dockerfile, "utf8"));
  const kept = await contextEntries(context);
  const copiedFromContext: string[] = [];
  const roots = new Map<string, string>();
  const canChown = process.getuid?.() === 0;
  let image: Image | undefined;

  await chmod(workspace, 0o755); // a non-root USER must reach its stage's files
  for (const stage of stages) {
    if (!stage.image.startsWith("node:")) throw new Error(`FROM ${stage.image}: the replay stands in for node: images only`);
    const root = path.join(workspace, stage.name);
    await mkdir(root, { recursive: true, mode: 0o755 });
    roots.set(stage.name, root);
    let workdir = "/";
    const env: Record<string, string> = {};
    let user: string | undefined;
    let cmd: string[] = [];
    let healthcheck: string[] | undefined;

    for (const { keyword, args, line } of stage.instructions) {
      const where = `Dockerfile line ${line}`;
      const here = path.join(root, workdir);
      switch (keyword) {
        case "WORKDIR":
          workdir = path.posix.resolve(workdir, args);
          await mkdir(path.join(root, workdir), { recursive: true, mode: 0o755 });
          break;
        case "ENV":
          for (const match of args.matchAll(/(\w+)=("[^"]*"|\S*)/g)) env[match[1]] = match[2].replace(/^"|"$/g, "");
          break;
        case "COPY": {
          const { flags: options, rest } = flags(words(args));
          const unknown = Object.keys(options).filter((name) => name !== "from" && name !== "chown");
          if (unknown.length) throw new Error(`${where}: COPY --${unknown[0]} is not replayed`);
          const dest = rest.pop()!;
          let fromRoot = context;
          if (options.from) {
            const stageRoot = roots.get(options.from);
            if (!stageRoot) throw new Error(`${where}: COPY --from=${options.from}: no such stage`);
            fromRoot = stageRoot;
          }
          const copied = await copy({
            sources: rest,
            fromRoot,
            // Only the build context is filtered by .dockerignore; another stage's files are all there.
            kept: options.from ? undefined : kept,
            dest,
            target: dest.startsWith("/") ? path.join(root, dest) : path.join(here, dest),
            record: options.from ? () => {} : (file) => copiedFromContext.push(file),
            where,
          });
          if (options.chown && canChown) {
            const owner = KNOWN_USERS[options.chown.split(":")[0]];
            if (!owner) throw new Error(`${where}: COPY --chown=${options.chown}: unknown user`);
            for (const entry of copied) await chownTree(entry, owner.uid, owner.gid);
          }
          break;
        }
        case "RUN":
          if (args.startsWith("--")) throw new Error(`${where}: RUN flags are not replayed`);
          await runShell(args, here, imageEnv(path.join(root, "root"), env), where);
          break;
        case "USER":
          if (!KNOWN_USERS[args]) throw new Error(`${where}: USER ${args} is unknown to the replay`);
          user = args;
          break;
        case "EXPOSE":
          break;
        case "HEALTHCHECK": {
          const match = /^((?:--\S+\s+)*)CMD\s+(.*)$/.exec(args);
          if (!match) throw new Error(`${where}: HEALTHCHECK must be HEALTHCHECK [options] CMD …`);
          healthcheck = command(match[2]);
          break;
        }
        case "CMD":
          cmd = command(args);
          break;
        default:
          throw new Error(`${where}: ${keyword} is not replayed; teach tests/support/dockerfile-replay.ts or change the Dockerfile`);
      }
    }
    image = { root, workdir: path.join(root, workdir), env, user, cmd, healthcheck, copiedFromContext };
  }
  if (!image) throw new Error("the Dockerfile has no stage");
  if (image.cmd.length === 0) throw new Error("the final stage has no CMD");
  return image;
}

/**
 * COPY's semantics for the forms the Dockerfile uses: a folder's contents go
 * into the target folder, files into it (a trailing slash, several sources, or
 * an existing folder) or onto it. `kept` filters paths relative to `fromRoot`;
 * `record` hears each path copied. Returns the top-level paths written.
 */
async function copy(args: {
  sources: string[];
  fromRoot: string;
  kept?: Set<string>;
  dest: string;
  target: string;
  record: (relativePath: string) => void;
  where: string;
}): Promise<string[]> {
  const { fromRoot, kept, target, record, where } = args;
  const relative = (p: string) => path.relative(fromRoot, p).split(path.sep).join("/");
  const copied: string[] = [];
  for (const source of args.sources) {
    if (/[*?[]/.test(source)) throw new Error(`${where}: COPY with a wildcard is not replayed`);
    const from = path.join(fromRoot, source);
    if (kept && relative(from) && !kept.has(relative(from))) throw new Error(`${where}: ${source} is not in the build context`);
    if (await isDir(from)) {
      await mkdir(target, { recursive: true });
      for (const entry of await readdir(from)) {
        if (kept && !kept.has(relative(path.join(from, entry)))) continue; // left out by .dockerignore
        await cp(path.join(from, entry), path.join(target, entry), {
          recursive: true,
          filter: (src) => {
            if (kept && !kept.has(relative(src))) return false;
            record(relative(src));
            return true;
          },
        });
        copied.push(path.join(target, entry));
      }
    } else {
      const into = args.dest.endsWith("/") || args.sources.length > 1 || (await isDir(target));
      const file = into ? path.join(target, path.basename(source)) : target;
      await mkdir(path.dirname(file), { recursive: true });
      await cp(from, file);
      record(relative(from));
      copied.push(file);
    }
  }
  return copied;
}

async function chownTree(target: string, uid: number, gid: number): Promise<void> {
  await chown(target, uid, gid);
  if (await isDir(target)) for (const entry of await readdir(target)) await chownTree(path.join(target, entry), uid, gid);
}

/**
 * How a command of the image runs here: in its WORKDIR, with its ENV plus
 * `env` (as `docker run -e`), as its USER when this process may switch to it.
 * `node` is the host's Node.
 */
function imageProcess(image: Image, argv: string[], env: Record<string, string>) {
  const [file, ...args] = argv;
  const account = image.user ? KNOWN_USERS[image.user] : undefined;
  const home = path.join(image.root, account?.home ?? "/root");
  const options: { cwd: string; env: NodeJS.ProcessEnv; uid?: number; gid?: number } = {
    cwd: image.workdir,
    env: imageEnv(home, image.env, env),
  };
  if (account && process.getuid?.() === 0 && canRunAs(account)) {
    options.uid = account.uid;
    options.gid = account.gid;
  }
  return { file: file === "node" ? process.execPath : file, args, options, home, account };
}

/** The host's Node may live where another user cannot reach it; then the command runs as this user. */
function canRunAs(account: { uid: number; gid: number }): boolean {
  return spawnSync(process.execPath, ["-e", "0"], { uid: account.uid, gid: account.gid }).status === 0;
}

/** Starts the image's CMD, like `docker run`; the caller stops it. */
export async function startImage(image: Image, env: Record<string, string>): Promise<{ child: ChildProcess; asUid?: number; output: () => string }> {
  const run = imageProcess(image, image.cmd, env);
  await mkdir(run.home, { recursive: true });
  if (run.options.uid !== undefined) await chown(run.home, run.options.uid, run.options.gid!);
  const child = spawn(run.file, run.args, { ...run.options, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  return { child, asUid: run.options.uid, output: () => output };
}

/** Runs the image's HEALTHCHECK command once, as Docker would; resolves with its exit code. */
export async function runHealthcheck(image: Image, env: Record<string, string>): Promise<number> {
  if (!image.healthcheck) throw new Error("the image declares no HEALTHCHECK");
  const run = imageProcess(image, image.healthcheck, env);
  const child = spawn(run.file, run.args, { ...run.options, stdio: "ignore" });
  return new Promise((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
}
