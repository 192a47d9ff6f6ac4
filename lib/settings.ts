import "server-only";
import { accountsSettings } from "@/lib/accounts/settings";
import { approvalsSettings } from "@/lib/approvals/settings";
import { budgetsSettings } from "@/lib/budgets/settings";
import { compactionSettings } from "@/lib/agent/compaction-settings";
import { documentsSettings } from "@/lib/documents/settings";
import { coreSettings, readEnvironment, settingsParser, type RawEnv } from "@/lib/env";
import { filesSettings } from "@/lib/files/settings";
import { mcpSettings } from "@/lib/mcp/settings";
import { memorySettings } from "@/lib/memory/settings";
import { modelsSettings } from "@/lib/model/settings";
import { remindersSettings } from "@/lib/reminders/settings";
import { sharesSettings } from "@/lib/shares/settings";

// The app's whole configuration: the core's slice and each wing's (a wing
// with variables of its own adds its slice here), checked in this order.

const settings = settingsParser([
  coreSettings,
  accountsSettings,
  budgetsSettings,
  modelsSettings,
  filesSettings,
  remindersSettings,
  documentsSettings,
  sharesSettings,
  memorySettings,
  mcpSettings,
  approvalsSettings,
  compactionSettings,
] as const);

/** Every variable the app reads. */
export const ENV_NAMES = settings.names;

/** The app's configuration, parsed. */
export type Env = ReturnType<typeof settings.parse>;

/**
 * The configuration in `raw` (blank counts as unset), or an error whose one
 * line names the first bad variable, what it must be and what it was.
 */
export const parseEnv = (raw: RawEnv): Env => settings.parse(raw);

/**
 * The app's configuration from this process's environment; throws the one-line error when a
 * value is bad. Read where the process builds its app (lib/app.ts's app())
 * and by the check at start (lib/start-check.ts); nothing else reads it.
 */
export function env(): Env {
  return parseEnv(readEnvironment(ENV_NAMES));
}
