import type { ReactNode } from "react";
import { app } from "@/lib/app";
import { pageRequest } from "@/lib/accounts/page-request";
import { describeModel } from "@/lib/model/config";
import { AppShell } from "@/components/ui/AppShell";
import type { Me } from "@/lib/protocol/accounts";
import type { ModelOption } from "@/lib/protocol/models";

// The model (and whether it is the offline demo) is read from the environment
// at request time, not frozen into the build.
export const dynamic = "force-dynamic";

/** The header's model, or what is wrong with the configuration (the page still renders to say so). */
function model(): { label: string; offline: boolean } {
  try {
    return describeModel(app().config);
  } catch (error) {
    return { label: (error as Error).message, offline: false };
  }
}

/** The models on offer for the picker; none when the configuration is bad (the header says what is wrong). */
function offered(): ModelOption[] {
  try {
    return app().models();
  } catch {
    return [];
  }
}

/** The most one attached file may be; the default when the configuration is bad (nothing is sent then anyway). */
function maxUploadBytes(): number {
  try {
    return app().attachmentMaxBytes;
  } catch {
    return 10 * 1024 * 1024;
  }
}

/** Who the header's account menu is for; nobody when the configuration or the database is wrong (the page says what). */
async function me(): Promise<Me | null> {
  try {
    return await app().accounts().me(await pageRequest());
  } catch {
    return null;
  }
}

/** The chat's pages: the sidebar, the header and the page. */
export default async function ChatLayout({ children }: { children: ReactNode }) {
  const { label, offline } = model();
  return (
    <AppShell model={{ label, offline }} models={offered()} maxUploadBytes={maxUploadBytes()} me={await me()}>
      {children}
    </AppShell>
  );
}
