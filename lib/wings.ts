import "server-only";
import { accountsWing } from "@/lib/accounts/wing";
import { approvalsWing } from "@/lib/approvals/wing";
import { budgetsWing } from "@/lib/budgets/wing";
import { documentsWing } from "@/lib/documents/wing";
import { feedbackWing } from "@/lib/feedback/wing";
import { filesWing } from "@/lib/files/wing";
import { mcpWing } from "@/lib/mcp/wing";
import { memoryWing } from "@/lib/memory/wing";
import { modelsWing } from "@/lib/models/wing";
import { remindersWing } from "@/lib/reminders/wing";
import { sharesWing } from "@/lib/shares/wing";
import type { Toolset } from "@/lib/agent/network/tools/types";
import type { DynamicTools } from "@/lib/agent/network/network";
import type { Wing, WingParts } from "@/lib/wing";

/**
 * The app's wings (lib/wing.ts), in the order their hooks run and their
 * tools are offered: a new feature is a folder and a line here (and one in
 * lib/settings.ts when it has variables of its own).
 */
export const WINGS = [accountsWing, budgetsWing, modelsWing, filesWing, remindersWing, documentsWing, feedbackWing, sharesWing, memoryWing, mcpWing, approvalsWing] as const;

// Folded over the list, wing by wing (a union of them would collapse to unknown).
type AppOf<W> = W extends Wing<infer App, object, never> ? App : unknown;
type ServicesOf<W> = W extends Wing<unknown, infer Services, never> ? Services : object;
type ConfigOf<W> = W extends Wing<never, object, infer Config> ? Config : unknown;
type AllNeed<L> = L extends readonly [infer W, ...infer Rest] ? AppOf<W> & AllNeed<Rest> : unknown;
type AllServices<L> = L extends readonly [infer W, ...infer Rest] ? ServicesOf<W> & AllServices<Rest> : object;
type AllConfig<L> = L extends readonly [infer W, ...infer Rest] ? ConfigOf<W> & AllConfig<Rest> : unknown;

/** Every wing's services, as members of the app. */
export type WingServices = AllServices<typeof WINGS>;
/** What the wings take from the app (each other's services among them): createApp must have all of it. */
export type WingsApp = AllNeed<typeof WINGS>;
/** What the wings read of the configuration, each its own slice: the app's configuration must hold all of it. */
export type WingsConfig = AllConfig<typeof WINGS>;

/** Builds every wing's services over the app's parts; `app` is looked up only when a service is called. */
export function wingServices(parts: WingParts<WingsConfig>, app: () => WingsApp): WingServices {
  const services = {};
  const later = lazily(app);
  for (const wing of WINGS) Object.assign(services, wing.services?.(parts, later));
  return services as WingServices;
}

/** The wings' toolsets, and the tools one lists before each turn, for the agents. */
export function wingTools(app: WingsApp): { toolsets: Toolset[]; listed?: Omit<DynamicTools, "agent"> } {
  const toolsets = WINGS.flatMap((wing) => wing.toolset?.(app) ?? []);
  const listed = WINGS.map((wing) => wing.listedTools?.(app)).find((tools) => tools !== undefined);
  return { toolsets, listed };
}

/** The app, looked up on each use: the wings' services are built while the app is. */
function lazily<T>(app: () => T): T {
  return new Proxy({}, { get: (_, key) => Reflect.get(app() as object, key) }) as T;
}
