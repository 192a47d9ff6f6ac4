import type { ChatMessage } from "@/lib/protocol/chat";
import { FILE_KIND_NAMES, fileSizeText } from "@/lib/protocol/file-kinds";
import type { FileMediaType } from "@/lib/protocol/files";
import { UI_METADATA_KEY } from "@/lib/protocol/parts-codec";
import { FileIcon } from "@/components/ui/icons";

type FileUIPart = Extract<ChatMessage["parts"][number], { type: "file" }>;

/** The files a user's message carries: images shown, any other file as a chip that downloads it. */
export function MessageFiles({ parts }: { parts: ChatMessage["parts"] }) {
  const files = parts.filter((part): part is FileUIPart => part.type === "file");
  if (files.length === 0) return null;
  return (
    <ul aria-label="Files" className="flex max-w-[85%] flex-wrap justify-end gap-2">
      {files.map((file, index) => {
        const name = file.filename ?? "file";
        const size = (file.providerMetadata?.[UI_METADATA_KEY] as { size?: number } | undefined)?.size;
        if (file.mediaType.startsWith("image/")) {
          return (
            <li key={index}>
              <a href={file.url} target="_blank" rel="noopener" title={name} className="block rounded-2xl focus-visible:outline-2">
                {/* eslint-disable-next-line @next/next/no-img-element */}
                <img src={file.url} alt={name} className="max-h-60 max-w-full rounded-2xl border border-neutral-200 object-contain dark:border-neutral-700" />
              </a>
            </li>
          );
        }
        return (
          <li key={index}>
            <a
              href={file.url}
              download={name}
              className="flex items-center gap-2 rounded-xl border border-neutral-200 bg-white px-3 py-2 text-xs hover:bg-neutral-50 focus-visible:outline-2 dark:border-neutral-700 dark:bg-neutral-900 dark:hover:bg-neutral-800"
            >
              <FileIcon />
              <span className="flex flex-col">
                <span className="max-w-56 truncate font-medium">{name}</span>
                <span className="text-neutral-500 dark:text-neutral-400">
                  {FILE_KIND_NAMES[file.mediaType as FileMediaType] ?? file.mediaType}
                  {size !== undefined ? ` · ${fileSizeText(size)}` : ""}
                </span>
              </span>
            </a>
          </li>
        );
      })}
    </ul>
  );
}
