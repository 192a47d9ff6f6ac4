import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { describeModel } from "@/lib/model/config";
import { AppShell } from "@/components/ui/AppShell";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Threadline", template: "%s · Threadline" },
  description: "Chat with AI agents that remember: streaming replies, threads saved to Postgres.",
};

export const viewport: Viewport = {
  colorScheme: "light dark",
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#171717" },
  ],
};

// The model (and whether it is the offline demo) is read from the environment
// at request time, not frozen into the build.
export const dynamic = "force-dynamic";

export default function RootLayout({ children }: { children: ReactNode }) {
  const { label, offline } = describeModel();
  return (
    <html lang="en">
      <body>
        <AppShell model={{ label, offline }}>{children}</AppShell>
      </body>
    </html>
  );
}
