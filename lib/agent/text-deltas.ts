/**
 * Joins a model's text deltas so that none ends inside a character. A
 * provider may cut its stream between the two halves of a surrogate pair (an
 * emoji, say): each half alone is not text, and Postgres, the client and the
 * signature would each see something different. A delta that ends with a
 * first half keeps it back until the next brings the second; what can never
 * be completed becomes U+FFFD, the replacement character.
 */
export class DeltaJoiner {
  private held = "";

  push(delta: string): string {
    let text = this.held + delta;
    this.held = "";
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.held = text.slice(-1);
      text = text.slice(0, -1);
    }
    return text.toWellFormed();
  }

  /** What is still held back, when the part ends. */
  flush(): string {
    const rest = this.held.toWellFormed();
    this.held = "";
    return rest;
  }
}
