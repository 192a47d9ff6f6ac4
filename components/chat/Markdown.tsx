"use client";

import { lazy, memo, Suspense } from "react";

// The markdown stack (parser, GFM, sanitizer) is the largest part of the chat
// page's JavaScript, and a new chat shows no message yet: it loads with the
// first message that needs it. A thread's page is still rendered on the
// server in full (hydration waits for the stack); a message that arrives
// before it has loaded shows as plain text meanwhile.
const MarkdownRenderer = lazy(() => import("@/components/chat/MarkdownRenderer"));

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <Suspense fallback={<div className="markdown whitespace-pre-wrap">{text}</div>}>
      <MarkdownRenderer text={text} />
    </Suspense>
  );
});
