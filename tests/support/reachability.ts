import v8 from "node:v8";
import vm from "node:vm";

v8.setFlagsFromString("--expose-gc");
// A context made after the flag is set gets the gc function.
const gc = vm.runInNewContext("gc") as () => void;

/**
 * Objects watched until the garbage collector takes them: how many of each
 * kind were watched and how many are still reachable after a full collection.
 * It holds nothing of them but weak references.
 */
export class Reachability {
  private readonly watched = new Map<string, number>();
  private readonly collected = new Map<string, number>();
  private readonly seen = new WeakSet<object>();
  private readonly registry = new FinalizationRegistry<string>((kind) => {
    this.collected.set(kind, (this.collected.get(kind) ?? 0) + 1);
  });

  watch(kind: string, object: object | undefined): void {
    if (!object || this.seen.has(object)) return;
    this.seen.add(object);
    this.watched.set(kind, (this.watched.get(kind) ?? 0) + 1);
    this.registry.register(object, kind);
  }

  /**
   * After collecting garbage until nothing more is finalized (a finalization
   * callback runs in a later task than the collection, and one collection can
   * free what keeps another object alive): per kind, watched and still alive.
   */
  async settle(): Promise<Record<string, { watched: number; alive: number }>> {
    let before = -1;
    for (let round = 0; round < 20; round++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
      const now = [...this.collected.values()].reduce((a, b) => a + b, 0);
      if (now === before && round >= 3) break;
      before = now;
    }
    return Object.fromEntries(
      [...this.watched].map(([kind, watched]) => [kind, { watched, alive: watched - (this.collected.get(kind) ?? 0) }]),
    );
  }
}
