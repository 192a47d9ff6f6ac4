import "server-only";
import { z } from "zod";
import { defineTool, type AgentTool, type ToolContext, type Toolset } from "@/lib/agent/network/tools/types";
import { DOCUMENT_KINDS, documentContentSchema, documentTitleSchema } from "@/lib/protocol/documents";
import type { DocumentStore } from "./document-store";

// The agents' hands on the thread's documents: write one, revise it (whole,
// or by edits to its latest version), read its latest. Each write is keyed by
// its reply and call, so a retried step writes nothing twice; none asks
// first (a document lives in the thread, and every version is kept). A write
// the store refuses (the document is full) is the call's error, which the
// model reads.

/** Who writes, from the call's context: the reply it is part of and the call. */
function writer(context: ToolContext) {
  if (!context.replyId || !context.toolCallId) throw new Error("A document is written only by a call in a reply.");
  return { author: context.agentName ?? "Assistant", messageId: context.replyId, toolCallId: context.toolCallId };
}

const edit = z.object({
  find: z.string().min(1).describe("Text of the latest version, exactly as it is, found exactly once"),
  replace: z.string().describe("What takes its place"),
});

/** `edits` applied to `content`, each `find` found exactly once in the text as it stands after the edits before it. */
export function applyEdits(content: string, edits: { find: string; replace: string }[]): string {
  let text = content;
  for (const [index, { find, replace }] of edits.entries()) {
    const at = text.indexOf(find);
    if (at === -1) throw new Error(`Edit ${index + 1}: its find text is not in the document; read_document gives the latest version.`);
    if (text.indexOf(find, at + 1) !== -1) throw new Error(`Edit ${index + 1}: its find text occurs more than once; give more of it.`);
    text = text.slice(0, at) + replace + text.slice(at + find.length);
  }
  return text;
}

export function documentTools(store: () => DocumentStore): AgentTool[] {
  return [
    defineTool({
      name: "create_document",
      description:
        "Write a document beside the conversation, which the user sees in a side panel and can edit: a plan, a draft, a piece of code. " +
        "Use it when the user asks for a document or for something long they will revise. Returns its id and version.",
      input: z.object({
        title: documentTitleSchema.describe("A short title"),
        kind: z.enum(DOCUMENT_KINDS).describe('"markdown" for prose, "code" for a program'),
        language: z.string().min(1).max(40).optional().describe("For code: its language, e.g. \"python\""),
        content: documentContentSchema.describe("The whole document"),
      }),
      async execute({ title, kind, language, content }, context) {
        const made = await store().create(context.owner, context.threadId, { title, kind, language, content }, writer(context));
        return { documentId: made.id, title, version: made.version };
      },
    }),
    defineTool({
      name: "update_document",
      description:
        "Revise a document of this conversation: give its whole new content, or edits (find/replace pairs) to its latest version. " +
        "Every version is kept, up to a bound on a document's versions together; past it, start a new document. Returns the new version's number.",
      input: z
        .object({
          id: z.uuid().describe("The document's id, as create_document returned it"),
          content: documentContentSchema.optional().describe("The whole new content"),
          edits: z.array(edit).min(1).max(50).optional().describe("Edits to the latest version, in order"),
        })
        .refine((input) => (input.content === undefined) !== (input.edits === undefined), "give either content or edits, not both"),
      async execute({ id, content, edits }, context) {
        const by = writer(context);
        const latest = await store().latest(context.owner, context.threadId, id, by.messageId);
        const next = content ?? applyEdits(latest.latest.content, edits!);
        const checked = documentContentSchema.safeParse(next);
        if (!checked.success) throw new Error(`The revised document ${checked.error.issues[0].message}.`);
        const written = await store().revise(context.owner, context.threadId, id, next, by);
        return { documentId: id, title: latest.title, version: written.version };
      },
    }),
    defineTool({
      name: "read_document",
      description: "The latest version of a document of this conversation (the user may have edited it): its title, kind and content.",
      input: z.object({ id: z.uuid().describe("The document's id") }),
      async execute({ id }, context) {
        const document = await store().latest(context.owner, context.threadId, id, context.replyId ?? null);
        const { version, content, author } = document.latest;
        return { documentId: id, title: document.title, kind: document.kind, ...(document.language ? { language: document.language } : {}), version, author, content };
      },
    }),
  ];
}

/** The document tools with the words that go with them in the agents' prompts. */
export const documentToolset = (store: () => DocumentStore): Toolset => ({
  tools: documentTools(store),
  handOverFor: "a document to write, read or revise",
  use:
    "create_document for a document the user asks for (a plan, a draft, code), " +
    "read_document and update_document to revise one (read it first: the user may have edited it)",
  offers: "documents",
});
