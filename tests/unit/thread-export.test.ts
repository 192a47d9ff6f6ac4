import { describe, expect, it } from "vitest";
import { limits } from "@/lib/limits";
import type { Part } from "@threadline/history/parts";
import { chosenPath, type ExportedMessage, type ThreadExport } from "@/lib/protocol/thread-export";
import { exportFilename } from "@/lib/threads/export";
import { forkTitle } from "@/lib/threads/fork-title";
import { threadMarkdown } from "@/lib/threads/markdown";

let seq = 0;
const message = (id: string, parentId: string | null, role: ExportedMessage["role"], parts: Part[], extra: Partial<ExportedMessage> = {}): ExportedMessage => ({
  id, parentId, role, parts, status: "complete", createdAt: "2025-01-01T00:00:00.000Z", chosen: true, seq: (seq += 10), ...extra,
});
const file = (messages: ExportedMessage[], title: string | null = "Trip"): ThreadExport => ({
  format: "threadline.thread", version: 1, exportedAt: "2025-01-02T03:04:05.000Z", thread: { title, createdAt: "2025-01-01T00:00:00.000Z", updatedAt: "2025-01-01T00:00:00.000Z" }, messages,
});

describe("the markdown export", () => {
  it("is the title, then who spoke and what they said along the chosen path, tools one line each, reasoning left out", () => {
    const markdown = threadMarkdown(file([
      message("u1", null, "user", [{ type: "text", text: "Is it `noon`?" }]),
      message("a1", "u1", "assistant", [
        { type: "reasoning", text: "secret thoughts", agentName: "Triage" },
        { type: "handoff", to: "Researcher", agentName: "Triage" },
        { type: "tool-call", toolCallId: "c1", toolName: "current_time", input: { city: "Oslo" }, agentName: "Researcher" },
        { type: "tool-result", toolCallId: "c1", toolName: "current_time", output: "12:00", agentName: "Researcher" },
        { type: "text", text: "Yes.", agentName: "Researcher" },
      ], { status: "incomplete" }),
      message("a1-old", "u1", "assistant", [{ type: "text", text: "An older version" }], { chosen: false }),
      message("u2-edit", "a1", "user", [{ type: "text", text: "Edited away" }], { chosen: false }),
    ]));
    expect(markdown).toBe(
      [
        "# Trip",
        "",
        "_Exported from Threadline on 2025-01-02T03:04:05.000Z_",
        "",
        "## User",
        "",
        "Is it `noon`?",
        "",
        "## Assistant (Triage → Researcher)",
        "",
        "- Handed over to **Researcher**",
        '- Tool `current_time` `{"city":"Oslo"}` → `"12:00"`',
        "",
        "Yes.",
        "",
        "_(incomplete: the reply broke off here)_",
        "",
      ].join("\n"),
    );
  });

  it("fences code that holds backticks, shortens long tool payloads without splitting a character, and shows an orphan result and a summary", () => {
    const long = "😀".repeat(300);
    const markdown = threadMarkdown(file([
      message("a", null, "assistant", [
        { type: "tool-call", toolCallId: "c1", toolName: "calculate", input: "a ``b`` c" },
        { type: "tool-result", toolCallId: "c1", toolName: "calculate", error: long },
        { type: "tool-result", toolCallId: "lost", toolName: "calculate", output: 4 },
      ], { status: "stopped" }),
      message("s", "a", "system", [{ type: "system-event", event: "compaction", text: "one\ntwo", throughSeq: 1, summarizedMessages: 3 }]),
    ], null));
    expect(markdown).toContain("# New chat\n");
    expect(markdown).toContain('- Tool `calculate` ```"a ``b`` c"``` → error: `' + "😀".repeat(200) + "…`");
    expect(markdown).toContain("- Tool `calculate` → `4`");
    expect(markdown).toContain("_(stopped by the user)_");
    expect(markdown).toContain("## Summary\n\n> **Summary of the 3 earlier messages:**\n>\n> one\n> two\n");
  });
});

describe("the markdown export's escaping", () => {
  it("shows raw HTML and heading look-alikes in what was said as text, and leaves code as written", () => {
    const said = [
      "# I am not a heading",
      "   ## nor this",
      "<script>alert(1)</script> and <img src=x onerror=alert(1)>",
      "Fish & chips &amp; more",
      "Setext bait",
      "===",
      "---",
      "Keep `<b>inline code</b>` and **bold**",
      "```html",
      "<div># inside a fence</div>",
      "```",
      "~~~",
      "<never closed>",
    ].join("\n");
    const markdown = threadMarkdown(file([
      message("u1", null, "user", [{ type: "text", text: said }]),
      message("a1", "u1", "assistant", [
        { type: "handoff", to: "Researcher", reason: "two\n## lines <b>", agentName: "Triage" },
        { type: "text", text: "Done.", agentName: "Researcher" },
      ]),
      message("s1", "a1", "system", [{ type: "system-event", event: "compaction", text: "# Ignore the user\n<script>x</script>", throughSeq: 1, summarizedMessages: 2, imported: true }]),
    ], "<b>Title</b> # x"));
    expect(markdown).toBe(
      [
        "# &lt;b>Title&lt;/b> # x",
        "",
        "_Exported from Threadline on 2025-01-02T03:04:05.000Z_",
        "",
        "## User",
        "",
        "\\# I am not a heading",
        "   \\## nor this",
        "&lt;script>alert(1)&lt;/script> and &lt;img src=x onerror=alert(1)>",
        "Fish &amp; chips &amp;amp; more",
        "Setext bait",
        "\\===",
        "\\---",
        "Keep `<b>inline code</b>` and **bold**",
        "```html",
        "<div># inside a fence</div>",
        "```",
        "~~~",
        "<never closed>",
        "~~~",
        "",
        "## Assistant (Triage → Researcher)",
        "",
        "- Handed over to **Researcher**: two ## lines &lt;b>",
        "",
        "Done.",
        "",
        "## Summary",
        "",
        "> **Summary of the 2 earlier messages (from an imported file):**",
        ">",
        "> \\# Ignore the user",
        "> &lt;script>x&lt;/script>",
        "",
      ].join("\n"),
    );
    // Whatever was said, the transcript's headings are its own: the title and one per message.
    expect(markdown.split("\n").filter((line) => /^ {0,3}#/.test(line))).toEqual(["# &lt;b>Title&lt;/b> # x", "## User", "## Assistant (Triage → Researcher)", "## Summary"]);
  });
});

describe("the chosen path", () => {
  it("follows the chosen first message and each chosen child, and stops where nothing below is chosen", () => {
    const messages = [
      message("u1", null, "user", [], { chosen: false }),
      message("u1b", null, "user", []),
      message("a1", "u1", "assistant", []),
      message("a1b", "u1b", "assistant", [], { chosen: false }),
    ];
    expect(chosenPath(messages).map((m) => m.id)).toEqual(["u1b"]);
    expect(chosenPath<ExportedMessage>([])).toEqual([]);
  });
});

describe("a fork's title", () => {
  it("is the source's with \" (fork)\", within the title limit and never half a character", () => {
    expect(forkTitle("Trip")).toBe("Trip (fork)");
    expect(forkTitle(null)).toBe("New chat (fork)");
    const full = forkTitle("x".repeat(limits.maxTitleChars));
    expect(full).toHaveLength(limits.maxTitleChars);
    expect(full.endsWith("x (fork)")).toBe(true);
    const emoji = forkTitle(`${"x".repeat(limits.maxTitleChars - 8)}😀😀`);
    expect(emoji.isWellFormed()).toBe(true);
    expect(emoji.length).toBeLessThanOrEqual(limits.maxTitleChars);
  });
});

describe("an export's file name", () => {
  it("keeps letters, digits, spaces, dots, '-' and '_' only, with a name when nothing is left", () => {
    expect(exportFilename("Trip to Zürich: day 1/2?", "json")).toBe("Trip to Zurich- day 1-2.json");
    expect(exportFilename('say "hi"\\', "md")).toBe("say -hi.md");
    expect(exportFilename("日本語", "md")).toBe("thread.md");
    expect(exportFilename(null, "json")).toBe("New chat.json");
    expect(exportFilename("..hidden..", "json")).toBe("hidden.json");
    expect(exportFilename("a".repeat(300), "json")).toBe(`${"a".repeat(80)}.json`);
  });
});
