// How deeply a tool's input or output may nest. Deeper JSON is refused where
// it comes in (the model's tool call, a client's copy of the thread, an
// imported file): nothing a person reads is nested that deep, a pretty-printed
// copy of it grows with the square of its depth, and recursive readers
// (validators, renderers) of it run out of stack. Isomorphic.

/** Objects and arrays inside one another, at most: `{"a":[1]}` nests 2 deep, a plain value 0. */
export const MAX_JSON_DEPTH = 64;

/**
 * How deeply `value` nests, counted without recursion and without looking
 * further than `limit + 1` levels down (a deeper value answers `limit + 1`).
 */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== "object") continue;
    const inner = depth + 1;
    if (inner > deepest) deepest = inner;
    if (inner > limit) return inner;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === "object") stack.push([child, inner]);
    }
  }
  return deepest;
}

export const tooDeepMessage = `must not nest objects and arrays more than ${MAX_JSON_DEPTH} deep`;
