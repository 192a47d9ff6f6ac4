"use client";

import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import type { ModelOption } from "@/lib/protocol/models";
import { actionButtonClass } from "@/components/chat/MessageActions";
import { RegenerateIcon } from "@/components/ui/icons";
import { useDismiss } from "@/components/ui/useDismiss";

/**
 * "Regenerate": with one model on offer it answers anew at once; with
 * several it opens "Regenerate with", a menu of them (the reply's own model
 * marked), and the new version is written by the one picked. Arrow keys move
 * through it, Escape or a click elsewhere closes it and the focus goes back
 * to the button.
 */
export function RegenerateMenu({
  models,
  current,
  disabled,
  onRegenerate,
}: {
  models: ModelOption[];
  /** The model that wrote the reply, if known. */
  current?: string;
  disabled: boolean;
  onRegenerate: (model?: string) => void;
}) {
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const items = useRef<(HTMLButtonElement | null)[]>([]);

  const closeOnEscape = useDismiss(open, root, setOpen, button);
  useEffect(() => {
    if (!open) return;
    const at = Math.max(0, models.findIndex((m) => m.id === current));
    items.current[at]?.focus();
  }, [open, models, current]);

  const onKeyDown = (event: KeyboardEvent) => {
    if (!open || closeOnEscape(event)) return;
    const at = items.current.findIndex((item) => item === document.activeElement);
    const move = (to: number) => {
      event.preventDefault();
      items.current[(to + models.length) % models.length]?.focus();
    };
    if (event.key === "ArrowDown") move(at + 1);
    else if (event.key === "ArrowUp") move(at - 1);
    else if (event.key === "Home") move(0);
    else if (event.key === "End") move(models.length - 1);
  };

  if (models.length < 2) {
    return (
      <button type="button" aria-label="Regenerate" title="Regenerate this reply" disabled={disabled} onClick={() => onRegenerate()} className={actionButtonClass}>
        <RegenerateIcon />
      </button>
    );
  }

  return (
    <div
      ref={root}
      className="relative"
      onKeyDown={onKeyDown}
      onBlur={(event) => {
        if (open && !root.current?.contains(event.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button
        ref={button}
        type="button"
        aria-label="Regenerate"
        title="Regenerate this reply, with the model you pick"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={menuId}
        disabled={disabled}
        onClick={() => setOpen((o) => !o)}
        className={actionButtonClass}
      >
        <RegenerateIcon />
      </button>
      <div
        id={menuId}
        role="menu"
        aria-label="Regenerate with"
        hidden={!open}
        className="absolute bottom-full left-0 z-20 mb-1 w-56 rounded-lg border border-neutral-200 bg-white p-1 shadow-lg dark:border-neutral-700 dark:bg-neutral-800"
      >
        {models.map((model, index) => (
          <button
            key={model.id}
            ref={(item) => {
              items.current[index] = item;
            }}
            type="button"
            role="menuitem"
            tabIndex={-1}
            aria-current={model.id === current || undefined}
            onClick={() => {
              setOpen(false);
              onRegenerate(model.id);
            }}
            className="flex w-full items-center justify-between gap-2 rounded-md px-3 py-1.5 text-left text-sm outline-none hover:bg-neutral-100 focus-visible:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-neutral-500 dark:hover:bg-neutral-700 dark:focus-visible:bg-neutral-700"
          >
            <span className="truncate">{model.label}</span>
            {/* Read as aria-current: the item's name stays the model's. */}
            {model.id === current && (
              <span aria-hidden="true" className="shrink-0 text-xs text-neutral-500 dark:text-neutral-400">
                this reply
              </span>
            )}
          </button>
        ))}
      </div>
    </div>
  );
}
