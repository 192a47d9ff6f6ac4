import type { Metadata } from "next";
import { app } from "@/lib/app";
import { signInPageState } from "@/lib/accounts/sign-in-page";
import { SignUpForm } from "@/components/account/SignUpForm";

export const metadata: Metadata = { title: "Create account" };

export default async function SignUpPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { anyone, guest, oidc } = await signInPageState(app().accounts());
  const { invite } = await searchParams;
  const policy = app().config.AUTH_SIGNUP;
  return <SignUpForm first={!anyone} invite={invite === "1" ? "open" : invite === "expired" ? "expired" : "none"} policy={policy} guest={guest} oidc={oidc} />;
}
