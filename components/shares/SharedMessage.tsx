import type { DynamicToolUIPart } from "ai";
import type { ChatMessage } from "@/lib/protocol/chat";
import { toUIParts, UI_METADATA_KEY } from "@/lib/protocol/parts-codec";
import { DOCUMENT_TOOL_NAMES } from "@/lib/protocol/document-kinds";
import { sharedFilePath, type SharedMessage as SharedMessageData, type ShareOptions } from "@/lib/protocol/shares";
import { documentEvent } from "@/lib/client/documents";
import { buildTimeline, reasoningDurationMs, type TimelineItem } from "@/components/chat/timeline";
import { toolDisplayName } from "@/components/chat/tool-status";
import { AgentLabel, HandoffNote } from "@/components/chat/AgentLabel";
import { Markdown } from "@/components/chat/Markdown";
import { MessageFiles } from "@/components/chat/MessageFiles";
import { ReasoningBlock } from "@/components/chat/ReasoningBlock";
import { SubAgentCard } from "@/components/chat/SubAgentCard";
import { ToolCard } from "@/components/chat/ToolCard";
import { FileIcon } from "@/components/ui/icons";

// One message of a shared conversation, drawn as the thread draws it (the
// chat's own timeline, cards and Markdown) but read-only: no controls, no
// thread behind it. What the link's options took out is not in the parts;
// what is left of a hidden tool call (its name) reads "Used <tool>".

type UIPart = ChatMessage["parts"][number];

interface SharedMessageProps {
  shareId: string;
  message: SharedMessageData;
  options: ShareOptions;
  /** The documents the link shows: a reply's "wrote" line leads to its own in the panel. */
  documents: readonly { id: string; title: string }[];
}

export function SharedMessage({ shareId, message, options, documents }: SharedMessageProps) {
  // A file is read through the link, never through the owner's own address.
  const parts = toUIParts(message.parts).map((part) => (part.type === "file" ? { ...part, url: sharedFilePath(shareId, fileIdOf(part)) } : part));
  const withheld = message.withheldFiles ? <WithheldFiles count={message.withheldFiles} /> : null;
  const status = message.status === "stopped" ? "Stopped" : message.status === "incomplete" ? "Incomplete: the model broke off here" : null;

  if (message.role === "user") {
    const text = parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n\n");
    return (
      <div data-role="user" className="flex flex-col items-end gap-1">
        <h2 className="sr-only print:not-sr-only print:text-xs print:font-semibold">User</h2>
        <MessageFiles parts={parts} />
        {withheld}
        {text.trim() && (
          <div className="max-w-[85%] rounded-3xl bg-neutral-100 px-4 py-2.5 break-words dark:bg-neutral-800 print:max-w-full print:rounded-none print:border-l-2 print:px-3">
            <Markdown text={text} />
          </div>
        )}
      </div>
    );
  }

  const sections = buildTimeline(parts);
  const shown = { shareId, options, documents };
  return (
    <div data-role="assistant" className="flex w-full min-w-0 flex-col gap-3 break-words">
      <h2 className="sr-only print:not-sr-only print:text-xs print:font-semibold">Assistant</h2>
      <MessageFiles parts={parts} />
      {withheld}
      <div className="flex flex-col gap-5">
        {sections.map((section) => (
          <div key={section.key}>
            {section.agent !== undefined && <AgentLabel name={section.agent} />}
            <div className="flex flex-col gap-3">
              {section.items.map((item) => (
                <SharedEntry key={item.key} item={item} agent={section.agent} shown={shown} />
              ))}
            </div>
          </div>
        ))}
      </div>
      {status && <p className="text-xs text-neutral-600 dark:text-neutral-300">{status}</p>}
    </div>
  );
}

type Shown = Pick<SharedMessageProps, "shareId" | "options" | "documents">;

function SharedEntry({ item, agent, shown }: { item: TimelineItem; agent?: string; shown: Shown }) {
  switch (item.kind) {
    case "text":
      return <Markdown text={item.text} />;
    case "reasoning":
      return <ReasoningBlock text={item.part.text} durationMs={reasoningDurationMs(item.part)} thinking={false} />;
    case "tool":
    case "sub-agent": {
      if (!detailsShown(item.part, shown.options)) return <UsedTool toolName={item.part.toolName} />;
      const event = documentEvent(item.part);
      if (event) return <SharedDocumentEvent {...event} agent={agent} anchor={documentAnchorOf(event, shown.documents)} />;
      if (item.kind === "tool") return <ToolCard part={item.part} streaming={false} followed />;
      return (
        <SubAgentCard part={item.part} call={item.call} streaming={false} followed>
          {item.call.items
            // Once the call returned, its text shows once, as the result (as in the thread).
            .filter((inner) => item.call.result === undefined || inner.kind !== "text")
            .map((inner) => (
              <SharedEntry key={inner.key} item={inner} shown={shown} />
            ))}
        </SubAgentCard>
      );
    }
    case "handoff":
      return <HandoffNote from={item.from} to={item.to} reason={item.reason} />;
    case "budget":
      return null; // never in a snapshot: the owner's spending is theirs
  }
}

/**
 * Whether the link holds a call's input and result: only with tool details,
 * and a document tool's only with the documents too (lib/shares/snapshot.ts
 * keeps the same rule, so without it there is nothing but the name to show).
 */
function detailsShown(part: DynamicToolUIPart, options: ShareOptions): boolean {
  return options.toolDetails && (options.documents || !DOCUMENT_TOOL_NAMES.has(part.toolName));
}

/** A call whose details the link does not show: its name only. */
function UsedTool({ toolName }: { toolName: string }) {
  const { name, server } = toolDisplayName(toolName);
  return (
    <p className="flex items-center gap-2 rounded-xl border border-neutral-200 px-3 py-1.5 text-sm text-neutral-700 dark:border-neutral-700 dark:text-neutral-200">
      <span aria-hidden="true" className="size-2 shrink-0 rounded-full bg-neutral-400 dark:bg-neutral-500" />
      <span className="min-w-0 wrap-anywhere">
        Used <span className="font-mono text-xs font-semibold">{name}</span>
        {server ? ` (MCP server ${server})` : ""}
      </span>
    </p>
  );
}

/** A document written or revised in the reply, leading to the panel's copy of it when the link shows it. */
function SharedDocumentEvent({ title, version, created, agent, anchor }: NonNullable<ReturnType<typeof documentEvent>> & { agent?: string; anchor?: string }) {
  return (
    <p className="flex items-center gap-2 rounded-xl border border-neutral-200 px-3 py-2 text-sm dark:border-neutral-700">
      <FileIcon />
      <span className="min-w-0 flex-1 wrap-anywhere">
        {agent ?? "The assistant"} {created ? "wrote" : "revised"} <em>{title}</em> (v{version})
      </span>
      {anchor && (
        <a href={`#${anchor}`} className="shrink-0 rounded-lg border border-neutral-300 px-2 py-1 text-xs font-medium hover:bg-neutral-100 print:hidden dark:border-neutral-600 dark:hover:bg-neutral-800">
          Show <span className="sr-only">{title}</span>
        </a>
      )}
    </p>
  );
}

function WithheldFiles({ count }: { count: number }) {
  return (
    <p className="text-xs text-neutral-600 dark:text-neutral-300">
      {count} attached file{count === 1 ? "" : "s"} not shared
    </p>
  );
}

/** The id a document's section in the panel has, for a reply's line to lead to. */
export const documentAnchor = (documentId: string) => `document-${documentId}`;

/**
 * Where the panel shows the document a call wrote: by its id, or, in a
 * thread imported from a file (its documents given new ids, the calls' results
 * kept as they were), by its title when no other document has it.
 */
function documentAnchorOf(event: { documentId: string; title: string }, documents: SharedMessageProps["documents"]): string | undefined {
  const byId = documents.find((document) => document.id === event.documentId);
  const byTitle = documents.filter((document) => document.title === event.title);
  const found = byId ?? (byTitle.length === 1 ? byTitle[0] : undefined);
  return found && documentAnchor(found.id);
}

function fileIdOf(part: Extract<UIPart, { type: "file" }>): string {
  return String((part.providerMetadata?.[UI_METADATA_KEY] as { fileId?: unknown } | undefined)?.fileId ?? "");
}
