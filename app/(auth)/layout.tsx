import type { ReactNode } from "react";
import { BRAND } from "@/lib/brand";

export const dynamic = "force-dynamic";

/** Signing in and up: one narrow column, the app's name above it. */
export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center gap-6 px-4 py-10">
      <p className="text-lg font-semibold tracking-tight">{BRAND.name}</p>
      <div className="w-full max-w-sm rounded-xl border border-neutral-200 p-6 shadow-sm dark:border-neutral-800">{children}</div>
    </main>
  );
}
