"use client";

import { Fragment, lazy, memo, Suspense } from "react";
import { plainParagraphs } from "@/lib/client/plain-text";

// The markdown stack (parser, GFM, sanitizer) is the largest part of the chat
// page's JavaScript. A message of plain paragraphs is drawn as markdown would
// draw it, without the stack (lib/client/plain-text.ts); the stack loads with
// the first message that needs it. A thread's page is still rendered on the
// server in full (hydrating a formatted message waits for the stack); one that
// arrives before it has loaded shows as plain text meanwhile.
const MarkdownRenderer = lazy(() => import("@/components/chat/MarkdownRenderer"));

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const paragraphs = plainParagraphs(text);
  if (paragraphs) {
    return (
      <div className="markdown">
        {paragraphs.map((paragraph, index) => (
          // Markdown puts a line break between its blocks.
          <Fragment key={index}>
            {index > 0 && "\n"}
            <p>{paragraph}</p>
          </Fragment>
        ))}
      </div>
    );
  }
  return (
    <Suspense fallback={<div className="markdown whitespace-pre-wrap">{text}</div>}>
      <MarkdownRenderer text={text} />
    </Suspense>
  );
});
