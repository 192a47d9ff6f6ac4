import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { app } from "@/lib/app";
import { pageRequest } from "@/lib/accounts/page-request";
import { PeoplePanel } from "@/components/account/PeoplePanel";

export const metadata: Metadata = { title: "People" };
export const dynamic = "force-dynamic";

/** The admin's page: everyone with an account, invites, approvals. Anyone else finds nothing here. */
export default async function PeoplePage() {
  const accounts = app().accounts();
  const identity = await accounts.identify(await pageRequest());
  if (!identity) await app().ownerFromCookies(); // nobody signed in: the sign-in page
  if (identity?.person?.role !== "admin") notFound();
  return <PeoplePanel me={identity.person.id} initial={await accounts.people().list()} />;
}
