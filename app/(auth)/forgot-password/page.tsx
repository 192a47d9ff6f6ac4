import type { Metadata } from "next";
import { app } from "@/lib/app";
import { signInPageState } from "@/lib/accounts/sign-in-page";
import { ForgotPasswordForm } from "@/components/account/ForgotPasswordForm";

export const metadata: Metadata = { title: "Reset your password" };

export default async function ForgotPasswordPage() {
  const accounts = app().accounts();
  await signInPageState(accounts);
  return <ForgotPasswordForm mail={accounts.mail !== undefined} />;
}
