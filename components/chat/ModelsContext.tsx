"use client";

import { createContext, useContext, type ReactNode } from "react";
import type { ModelOption } from "@/lib/protocol/models";

// The models on offer, as the server rendered the page with them (the same
// list GET /api/models answers): the picker, "Regenerate with" and each
// reply's model label read it.
const ModelsContext = createContext<ModelOption[]>([]);

export function ModelsProvider({ models, children }: { models: ModelOption[]; children: ReactNode }) {
  return <ModelsContext.Provider value={models}>{children}</ModelsContext.Provider>;
}

export const useModels = (): ModelOption[] => useContext(ModelsContext);
