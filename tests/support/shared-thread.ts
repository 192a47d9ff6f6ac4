import { randomUUID } from "node:crypto";
import type { ThreadExport } from "@/lib/protocol/thread-export";
import { solidPng } from "./files";

// A thread file (what an import reads) holding one of every part a share
// link's options hide, each marked with a word no viewer may ever see unless
// the option shows it, and a second branch the link must leave out.

export const SECRETS = {
  toolInput: "SECRET-TOOL-INPUT-7f3",
  toolOutput: "SECRET-TOOL-OUTPUT-9c1",
  reasoning: "SECRET-REASONING-4d2",
  document: "SECRET-DOCUMENT-TEXT-1a8",
  attachment: "secret-attachment-5e6.png",
  otherBranch: "SECRET-OTHER-BRANCH-2b4",
  feedback: "SECRET-FEEDBACK-3c9",
  approvalReason: "SECRET-APPROVAL-REASON-8e7",
  subAgent: "SECRET-SUB-AGENT-6f5",
} as const;

/** What the link shows whatever its options. */
export const SHOWN = { question: "What is six times seven?", answer: "Six times seven is 42.", documentTitle: "Multiplication notes" } as const;

/** The thread file, with fresh ids (the attached image is a 4×4 PNG). */
export function sharedThreadFile(): ThreadExport {
  const id = () => randomUUID();
  const [u1, a1, a1b, u2, a2] = [id(), id(), id(), id(), id()];
  const fileId = id();
  const documentId = id();
  const png = solidPng("#cc3366");
  const at = (second: number) => new Date(Date.UTC(2026, 10, 1, 12, 0, second)).toISOString();
  return {
    format: "threadline.thread",
    version: 1,
    exportedAt: at(59),
    thread: { title: "Multiplication", createdAt: at(0), updatedAt: at(50) },
    files: [{ id: fileId, name: SECRETS.attachment, mediaType: "image/png", size: png.length, data: png.toString("base64") }],
    messages: [
      {
        id: u1, parentId: null, role: "user", status: "complete", createdAt: at(1), chosen: true, seq: 1,
        parts: [{ type: "text", text: SHOWN.question }, { type: "file", fileId, name: SECRETS.attachment, mediaType: "image/png", size: png.length }],
      },
      {
        id: a1, parentId: u1, role: "assistant", status: "complete", createdAt: at(2), chosen: true, seq: 3, model: "mock:test",
        feedback: { rating: "down", comment: SECRETS.feedback, updatedAt: at(6) },
        parts: [
          { type: "reasoning", text: `Multiply. ${SECRETS.reasoning}`, durationMs: 900 },
          { type: "tool-call", toolCallId: "call-calc", toolName: "calculate", input: { expression: `6*7 ${SECRETS.toolInput}` } },
          { type: "tool-result", toolCallId: "call-calc", toolName: "calculate", output: { result: 42, note: SECRETS.toolOutput } },
          { type: "tool-call", toolCallId: "call-sub", toolName: "ask_researcher", input: { question: "check" } },
          { type: "text", text: `Checked. ${SECRETS.subAgent}`, parentCallId: "call-sub", rootCallId: "call-sub", agentName: "Researcher" },
          { type: "tool-result", toolCallId: "call-sub", toolName: "ask_researcher", output: "checked" },
          {
            type: "tool-call", toolCallId: "call-doc", toolName: "create_document",
            input: { title: SHOWN.documentTitle, kind: "markdown", content: SECRETS.document },
          },
          { type: "tool-result", toolCallId: "call-doc", toolName: "create_document", output: { documentId, title: SHOWN.documentTitle, version: 1 } },
          { type: "tool-call", toolCallId: "call-denied", toolName: "send_email", input: { to: "a@example.org" }, approval: { id: id() } },
          {
            type: "tool-result", toolCallId: "call-denied", toolName: "send_email", error: "The user denied this call.",
            approval: { id: id(), outcome: "denied", reason: SECRETS.approvalReason },
          },
          { type: "text", text: SHOWN.answer },
          { type: "notice", notice: "budget", text: "You have used your $2.00 for today." },
        ],
      },
      {
        id: a1b, parentId: u1, role: "assistant", status: "complete", createdAt: at(3), chosen: false, seq: 15,
        parts: [{ type: "text", text: SECRETS.otherBranch }],
      },
      { id: u2, parentId: a1, role: "user", status: "complete", createdAt: at(4), chosen: true, seq: 16, parts: [{ type: "text", text: "Thanks!" }] },
      { id: a2, parentId: u2, role: "assistant", status: "complete", createdAt: at(5), chosen: true, seq: 17, parts: [{ type: "text", text: "You are welcome." }] },
    ],
    documents: [
      {
        id: documentId, title: SHOWN.documentTitle, kind: "markdown", createdAt: at(2),
        versions: [{ version: 1, content: `# Notes\n\n${SECRETS.document}`, author: "Triage", messageId: a1, toolCallId: "call-doc", createdAt: at(2) }],
      },
    ],
  } as ThreadExport;
}
