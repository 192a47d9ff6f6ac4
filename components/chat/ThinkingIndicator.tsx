"use client";

/** The dots while a reply is awaited; with `label`, the words of what the turn is doing meanwhile. */
export function ThinkingIndicator({ label }: { label?: string }) {
  return (
    <div role="status" className="flex items-center gap-1 py-2" aria-label={label ?? "Thinking"}>
      {/* Classes, not style attributes: the Content-Security-Policy allows no inline styles. */}
      {["[animation-delay:0ms]", "[animation-delay:150ms]", "[animation-delay:300ms]"].map((delay) => (
        <span key={delay} className={`size-2 animate-bounce rounded-full bg-neutral-400 dark:bg-neutral-500 ${delay}`} />
      ))}
      {label && <span className="ml-2 text-sm text-neutral-500 dark:text-neutral-400">{label}</span>}
    </div>
  );
}
