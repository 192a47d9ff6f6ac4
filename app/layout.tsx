import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { app } from "@/lib/app";
import { describeModel } from "@/lib/model/config";
import { AppShell } from "@/components/ui/AppShell";
import { BRAND } from "@/lib/brand";
import type { ModelOption } from "@/lib/protocol/models";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: BRAND.name, template: `%s · ${BRAND.name}` },
  description: BRAND.description,
  // The name a phone's home screen shows under the icon (app/apple-icon.tsx, app/manifest.ts).
  appleWebApp: { title: BRAND.name },
};

export const viewport: Viewport = {
  colorScheme: "light dark",
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: BRAND.background },
    { media: "(prefers-color-scheme: dark)", color: BRAND.ink },
  ],
};

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

export default function RootLayout({ children }: { children: ReactNode }) {
  const { label, offline } = model();
  return (
    <html lang="en">
      <body>
        <AppShell model={{ label, offline }} models={offered()} maxUploadBytes={maxUploadBytes()}>
          {children}
        </AppShell>
      </body>
    </html>
  );
}
