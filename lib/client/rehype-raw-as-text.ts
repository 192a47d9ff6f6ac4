// Raw HTML typed in a message is shown literally, the way the user typed it.
// rehype-sanitize alone would delete it, so "what does <div> do?" would lose
// its <div>. Turning it into text first means no HTML from a message is ever
// parsed; rehype-sanitize still runs afterwards on what markdown produced.

interface HastNode {
  type: string;
  value?: string;
  children?: HastNode[];
}

function rawToText(node: HastNode): void {
  if (!node.children) return;
  node.children = node.children.map((child) => {
    if (child.type === "raw") return { type: "text", value: child.value ?? "" };
    rawToText(child);
    return child;
  });
}

/** A rehype plugin: put it before rehype-sanitize. */
export function rehypeRawAsText() {
  return (tree: HastNode) => rawToText(tree);
}
