"use client";

import type { ModelOption } from "@/lib/protocol/models";

/** "Model": which model answers the next message. A native select, so the keyboard and screen readers know it as a combobox. */
export function ModelPicker({ models, value, disabled, onChange }: { models: ModelOption[]; value: string; disabled: boolean; onChange: (id: string) => void }) {
  return (
    <select
      aria-label="Model"
      title="The model that answers your next message"
      value={value}
      disabled={disabled}
      onChange={(event) => onChange(event.target.value)}
      className="h-10 max-w-40 shrink-0 truncate rounded-full border border-neutral-200 bg-transparent px-2 text-xs text-neutral-700 outline-none hover:bg-neutral-50 focus-visible:ring-2 focus-visible:ring-neutral-500 disabled:opacity-50 dark:border-neutral-600 dark:text-neutral-200 dark:hover:bg-neutral-700"
    >
      {models.map((model) => (
        <option key={model.id} value={model.id}>
          {model.label}
        </option>
      ))}
    </select>
  );
}
