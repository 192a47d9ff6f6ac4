import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { app } from "@/lib/app";
import { pageRequest } from "@/lib/accounts/page-request";
import { ResetPasswordForm } from "@/components/account/ResetPasswordForm";

export const metadata: Metadata = { title: "Set a new password" };

/** A reset link lands here: from a mail (through Better Auth's check, which adds ?error= to a dead one) or from an admin. */
export default async function ResetPasswordPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const accounts = app().accounts();
  if (accounts.mode !== "accounts") redirect("/");
  const { token, error } = await searchParams;
  const value = typeof token === "string" ? token : "";
  const open = error === undefined && value !== "" && (await accounts.resetLinkOpen(value, await pageRequest()));
  return <ResetPasswordForm token={value} open={open} />;
}
