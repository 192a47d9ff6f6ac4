"use client";

import { lazy, Suspense, useState } from "react";
import { HeaderActionsSlot } from "@/components/ui/HeaderActions";
import { DevicesIcon, MenuIcon } from "@/components/ui/icons";
import { useOpenedOnce } from "@/components/ui/useOpenedOnce";
import { AccountMenu } from "@/components/account/AccountMenu";
import type { Me } from "@/lib/protocol/accounts";

// Not needed for the first paint: loaded when the user first asks for a link.
const DeviceLinkDialog = lazy(() => import("@/components/ui/DeviceLinkDialog").then((m) => ({ default: m.DeviceLinkDialog })));

export interface ModelBadgeInfo {
  label: string;
  /** No API key configured: replies come from the built-in offline demo model. */
  offline: boolean;
}

export function Header({ model, several, me, onOpenSidebar }: { model: ModelBadgeInfo; several: boolean; me: Me | null; onOpenSidebar: () => void }) {
  const [linkOpen, setLinkOpen] = useState(false);
  const linkDialogLoaded = useOpenedOnce(linkOpen);
  return (
    <header className="flex h-14 shrink-0 items-center gap-3 border-b border-neutral-200 px-3 dark:border-neutral-800">
      <button
        type="button"
        onClick={onOpenSidebar}
        aria-label="Open sidebar"
        className="grid size-9 place-items-center rounded-lg hover:bg-neutral-100 md:hidden dark:hover:bg-neutral-800"
      >
        <MenuIcon />
      </button>
      {/* Offline, the badge alone names the model, so its name appears once on the page. */}
      {model.offline ? (
        <span className="truncate rounded-full border border-amber-300 bg-amber-50 px-2.5 py-0.5 text-xs font-medium text-amber-800 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-200">
          Offline demo model — no API key configured
        </span>
      ) : several ? null : (
        // With several on offer, the picker beside the composer says which one answers.
        <span className="truncate text-sm font-medium text-neutral-700 dark:text-neutral-200">{model.label}</span>
      )}
      <div className="ml-auto flex shrink-0 items-center gap-1">
        <HeaderActionsSlot />
        {/* A browser identity travels by a link; an account signs in on the other device. */}
        {me?.mode === "open" && (
          // On a phone the words would push the model's name out: the icon stands for them.
          <button
            type="button"
            onClick={() => setLinkOpen(true)}
            className="inline-flex items-center gap-1.5 rounded-lg px-2.5 py-1.5 text-sm text-neutral-700 hover:bg-neutral-100 dark:text-neutral-200 dark:hover:bg-neutral-800"
          >
            <DevicesIcon className="sm:hidden" />
            <span className="sr-only sm:not-sr-only">Use on another device</span>
          </button>
        )}
        {me && me.mode !== "open" && <AccountMenu me={me} />}
      </div>
      {linkDialogLoaded && (
        <Suspense fallback={null}>
          <DeviceLinkDialog open={linkOpen} onClose={() => setLinkOpen(false)} />
        </Suspense>
      )}
    </header>
  );
}
