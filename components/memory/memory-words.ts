// How the Memory page words a memory's life and what an add or import did.
// Pure functions only.
import type { Memory } from "@/lib/protocol/memory";

/** A date as a reader says it, in their own locale and time zone. */
const dateText = (at: string) => new Date(at).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });

/** "Made 3 Jun 2025 · Last used 5 Jun 2025" or "… · Never used yet". */
export function lifeText(memory: Pick<Memory, "createdAt" | "lastUsedAt">): string {
  const used = memory.lastUsedAt === null ? "Never used yet" : `Last used ${dateText(memory.lastUsedAt)}`;
  return `Made ${dateText(memory.createdAt)} · ${used}`;
}

/** What the count bound removed to make room, said to the person; null when nothing went. */
export function evictedText(evicted: Pick<Memory, "text">[] | undefined): string | null {
  if (!evicted || evicted.length === 0) return null;
  const quoted = evicted.map((memory) => `“${memory.text}”`).join(", ");
  return evicted.length === 1
    ? `Your memory was full, so the oldest unused memory was removed to make room: ${quoted}.`
    : `Your memory was full, so the ${evicted.length} oldest unused memories were removed to make room: ${quoted}.`;
}

const memories = (n: number) => `${n} ${n === 1 ? "memory" : "memories"}`;

/** "Imported 3 memories." and, when the file held some already kept, "2 memories were kept already." */
export function importedText({ imported, skipped }: { imported: number; skipped: number }): string {
  const kept = skipped === 0 ? "" : ` ${memories(skipped)} ${skipped === 1 ? "was" : "were"} kept already.`;
  return `Imported ${memories(imported)}.${kept}`;
}
