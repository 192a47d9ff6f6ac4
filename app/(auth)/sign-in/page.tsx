import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { app } from "@/lib/app";
import { safeNext, signInPageState, signInRefusal } from "@/lib/accounts/sign-in-page";
import { SignInForm } from "@/components/account/SignInForm";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { anyone, guests, oidc, mail } = await signInPageState(app().accounts());
  // A new install has nobody to sign in: its first step is the first account (the sign-up page offers the OIDC providers too).
  if (!anyone) redirect("/sign-up");
  const { next, error } = await searchParams;
  return <SignInForm next={safeNext(next)} guests={guests} oidc={oidc} mail={mail} refusal={signInRefusal(error)} />;
}
