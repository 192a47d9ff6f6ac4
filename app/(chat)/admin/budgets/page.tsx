import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { app } from "@/lib/app";
import { pageRequest } from "@/lib/accounts/page-request";
import { BudgetsPanel } from "@/components/budgets/BudgetsPanel";

export const metadata: Metadata = { title: "Budgets" };
export const dynamic = "force-dynamic";

/** The admin's page: what everyone, guests, each group and each person may spend. Anyone else finds nothing here. */
export default async function BudgetsPage() {
  const accounts = app().accounts();
  const identity = await accounts.identify(await pageRequest());
  if (!identity) await app().ownerFromCookies(); // nobody signed in: the sign-in page
  if (identity?.person?.role !== "admin") notFound();
  const [budgets, groups, people] = await Promise.all([app().budgets().list(), app().budgetGroups().list(), accounts.people().list()]);
  return <BudgetsPanel initial={{ budgets, groups }} people={people.map(({ id, name, email }) => ({ id, name, email }))} />;
}
