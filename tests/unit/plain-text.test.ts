// A message of plain paragraphs is drawn without the markdown stack: it must
// come out exactly as the markdown renderer would draw it, and anything
// markdown would format must still go to the renderer.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Markdown } from "@/components/chat/Markdown";
import MarkdownRenderer from "@/components/chat/MarkdownRenderer";
import { plainParagraphs } from "@/lib/client/plain-text";

const drawn = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }));
const rendered = (text: string) => renderToStaticMarkup(createElement(MarkdownRenderer, { text }));

describe("a plain message", () => {
  it.each([
    "Hello there.",
    "",
    "First paragraph.\n\nSecond one, after a blank line.\n\n\nThird.",
    "Two lines\nof one paragraph, (with brackets) and 42 % of \"quotes\": fine!",
    "\n\nLeading and trailing blank lines\n\n",
    "Ünïcödé, emoji 😀 and a dash – in the middle - too; version 2.0 costs $5?",
  ])("is drawn as the markdown renderer draws it: %j", (text) => {
    expect(plainParagraphs(text)).not.toBeNull();
    expect(drawn(text)).toBe(rendered(text));
  });

  it.each([
    "**bold**",
    "some _emphasis_",
    "`code`",
    "~~gone~~",
    "[a link](https://example.com)",
    "see https://example.com",
    "see www.example.com",
    "mail me@example.com",
    "<b>html</b>",
    "fish &amp; chips",
    "a | b\n--|--\n1 | 2",
    "# Heading",
    "> quote",
    "- item",
    "+ item",
    "1. first",
    "3) third",
    "Title\n=====",
    "Title\n---",
    "    indented code",
    "\tindented code",
    "hard  \nbreak",
    "escaped \\*star\\*",
  ])("goes to the markdown renderer when markdown would format it: %j", (text) => {
    expect(plainParagraphs(text)).toBeNull();
  });

  it("whatever its characters, a text taken as plain is drawn as the renderer draws it", () => {
    // Mostly prose, with every character markdown gives a meaning to here and there.
    const prose = fc.constantFrom(..."aaaabbbc   1.\n\n)é");
    const syntax = fc.constantFrom(..."-*_#>=+|[]()<&@w:/!\\`~\t");
    let plain = 0;
    fc.assert(
      fc.property(fc.array(fc.oneof({ arbitrary: prose, weight: 12 }, { arbitrary: syntax, weight: 1 }), { maxLength: 40 }), (chars) => {
        const text = chars.join("");
        if (plainParagraphs(text) === null) return;
        plain++;
        expect(drawn(text)).toBe(rendered(text));
      }),
      { numRuns: 2_000 },
    );
    expect(plain).toBeGreaterThan(200);
  });

  it("a formatted one is not drawn as plain paragraphs", () => {
    expect(drawn("Here is **bold text**")).not.toContain("<p>Here is **bold text**</p>");
  });
});
