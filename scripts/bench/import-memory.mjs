// The memory an import of a long thread takes: a 20,000-message thread file
// (about 12 MB), imported into the database at DATABASE_URL as
// POST /api/threads/import does it (read as it arrives, checked, copied to
// disk, then written in batches in one transaction). Beside it, for
// comparison, what reading the same file whole takes (JSON.parse and the
// schema of a whole file, as the import did before it streamed): the heap
// that one needs grows with the file, the streamed one's does not.
//
//   DATABASE_URL=postgres://... node --expose-gc scripts/bench/import-memory.mjs [--messages 20000]
//
// Prints one JSON line: the peak above the starting point of the heap
// (JavaScript objects, strings, garbage not yet collected included), of the
// live heap (after a full collection, once a megabyte of the file), of
// external memory (buffers) and of RSS, in MiB, sampled every millisecond.
import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { once } from "node:events";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createJiti } from "jiti";
import pg from "pg";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SAID = 'Ünïcödé "quotes", a back\\slash, a tab\t and an emoji 😀. ';
const MiB = (bytes) => Math.round((bytes / 2 ** 20) * 10) / 10;

/** A thread file of `count` messages, user and assistant by turns, written to `file` a message at a time. */
async function writeThreadFile(file, count) {
  const out = createWriteStream(file);
  const write = async (text) => {
    if (!out.write(text)) await once(out, "drain");
  };
  const at = "2025-01-01T00:00:00.000Z";
  await write(`{"format":"threadline.thread","version":1,"exportedAt":"${at}","thread":{"title":"A long thread","createdAt":"${at}","updatedAt":"${at}"},"messages":[`);
  for (let i = 1; i <= count; i++) {
    const role = i % 2 === 1 ? "user" : "assistant";
    const message = { id: `m${i}`, parentId: i === 1 ? null : `m${i - 1}`, role, parts: [{ type: "text", text: `Message ${i}: ${SAID.repeat(4)}` }], status: "complete", createdAt: at, chosen: true, seq: i };
    await write(`${i === 1 ? "" : ","}${JSON.stringify(message)}`);
  }
  out.end("]}\n");
  await once(out, "finish");
}

/**
 * Runs `work` while sampling memory; the peak of each figure above where it
 * started, in MiB. `liveHeapMiB` is the heap after a full collection, taken
 * each time `work` asks (garbage left out: what the work holds).
 */
async function peakOf(work) {
  global.gc();
  const start = process.memoryUsage();
  const peak = { ...start, live: start.heapUsed };
  const sample = (collect = false) => {
    if (collect) global.gc();
    const now = process.memoryUsage();
    for (const key of ["heapUsed", "external", "rss"]) peak[key] = Math.max(peak[key], now[key]);
    if (collect) peak.live = Math.max(peak.live, now.heapUsed);
  };
  const timer = setInterval(sample, 1);
  try {
    await work(sample);
  } finally {
    clearInterval(timer);
    sample();
  }
  return {
    heapMiB: MiB(peak.heapUsed - start.heapUsed),
    liveHeapMiB: MiB(peak.live - start.heapUsed),
    externalMiB: MiB(peak.external - start.external),
    rssMiB: MiB(peak.rss - start.rss),
  };
}

export async function importMemory({ messages = 20_000, databaseUrl = process.env.DATABASE_URL } = {}) {
  if (!databaseUrl) throw new Error("Set DATABASE_URL to a migrated Threadline database.");
  if (typeof global.gc !== "function") throw new Error("Run with node --expose-gc.");
  const jiti = createJiti(import.meta.url, { alias: { "@": root, "server-only": path.join(root, "tests/support/server-only.ts") } });
  const { importThreadFile } = await jiti.import(path.join(root, "lib/threads/import-file.ts"));
  const { ThreadRepository } = await jiti.import(path.join(root, "lib/threads/repository.ts"));
  const { threadExportSchema } = await jiti.import(path.join(root, "lib/protocol/thread-export.ts"));

  const folder = await mkdtemp(path.join(tmpdir(), "import-memory-"));
  const file = path.join(folder, "thread.json");
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  try {
    await writeThreadFile(file, messages);
    const owner = `bench-${randomUUID()}`;
    const threads = new ThreadRepository(pool);
    // One small import first, so the modules and the pool are warm and not counted.
    await importThreadFile(threads, owner, createReadStream(file, { end: 4096 })).catch(() => {});
    let imported;
    const streamed = await peakOf(async (sample) => {
      async function* sampled() {
        let chunks = 0;
        for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 })) {
          sample(++chunks % 16 === 0); // the live heap once a megabyte
          yield chunk;
        }
      }
      imported = await importThreadFile(threads, owner, sampled());
    });
    const whole = await peakOf(async (sample) => {
      const parsed = threadExportSchema.parse(JSON.parse(await readFile(file, "utf8")));
      sample(true);
      return parsed;
    });
    await pool.query("DELETE FROM threads WHERE owner = $1", [owner]);
    return { messages: imported.messageCount, fileMiB: MiB((await stat(file)).size), streamedImport: streamed, wholeFileParse: whole };
  } finally {
    await pool.end();
    await rm(folder, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { messages: { type: "string" } } });
  console.log(JSON.stringify(await importMemory({ messages: values.messages ? Number(values.messages) : undefined })));
}
