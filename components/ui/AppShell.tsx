"use client";

import { useMemo, useState, type ReactNode } from "react";
import { usePathname } from "next/navigation";
import { NewChatProvider } from "@/components/chat/NewChatContext";
import { Sidebar } from "@/components/sidebar/Sidebar";
import { ThreadsProvider } from "@/components/sidebar/ThreadsContext";
import { Header, type ModelBadgeInfo } from "@/components/ui/Header";
import { HeaderActionsProvider } from "@/components/ui/HeaderActions";
import { PageSettingsProvider } from "@/components/chat/PageSettingsContext";
import type { ModelOption } from "@/lib/protocol/models";
import type { Me } from "@/lib/protocol/accounts";

/** The page frame: threads sidebar on the left, header and the page in the main column. */
export function AppShell({
  model,
  models,
  maxUploadBytes,
  me,
  children,
}: {
  model: ModelBadgeInfo;
  models: ModelOption[];
  /** The most one attached file may be (ATTACHMENT_MAX_MB). */
  maxUploadBytes: number;
  /** Who is signed in (the account menu), or null when that could not be read. */
  me: Me | null;
  children: ReactNode;
}) {
  const [sidebarOpen, setSidebarOpen] = useState(false);
  const settings = useMemo(() => ({ models, maxUploadBytes }), [models, maxUploadBytes]);
  const pathname = usePathname();
  const [lastPathname, setLastPathname] = useState(pathname);
  // The drawer closes when the page changes (React's "adjust state on prop change" pattern, no effect).
  if (pathname !== lastPathname) {
    setLastPathname(pathname);
    setSidebarOpen(false);
  }

  return (
    <PageSettingsProvider settings={settings}>
    <NewChatProvider>
      <ThreadsProvider>
        <HeaderActionsProvider>
          <div className="flex h-dvh overflow-hidden">
            <Sidebar open={sidebarOpen} onClose={() => setSidebarOpen(false)} sharedLinks={me?.mode === "open"} />
            <div className="flex min-w-0 flex-1 flex-col">
              <Header model={model} several={models.length > 1} me={me} onOpenSidebar={() => setSidebarOpen(true)} />
              <main className="min-h-0 flex-1">{children}</main>
            </div>
          </div>
        </HeaderActionsProvider>
      </ThreadsProvider>
    </NewChatProvider>
    </PageSettingsProvider>
  );
}
