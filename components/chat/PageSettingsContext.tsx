"use client";

import { createContext, useContext, type ReactNode } from "react";
import type { ModelOption } from "@/lib/protocol/models";

/**
 * What the server rendered the page with, the same for every thread it
 * shows: the models on offer (the list GET /api/models answers: the picker,
 * "Regenerate with" and each reply's label read it) and the most one attached
 * file may be (ATTACHMENT_MAX_MB, in bytes: the composer refuses a bigger file
 * before it is uploaded; the server refuses it too, whatever the page says).
 */
export interface PageSettings {
  models: ModelOption[];
  maxUploadBytes: number;
}

const PageSettingsContext = createContext<PageSettings>({ models: [], maxUploadBytes: 10 * 1024 * 1024 });

export function PageSettingsProvider({ settings, children }: { settings: PageSettings; children: ReactNode }) {
  return <PageSettingsContext.Provider value={settings}>{children}</PageSettingsContext.Provider>;
}

export const usePageSettings = (): PageSettings => useContext(PageSettingsContext);
