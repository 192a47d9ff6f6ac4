import "server-only";
import type { SessionSecret } from "@/lib/auth/secret";
import type { RateLimits } from "@/lib/rate-limit";
import { once, type Wing, type WingParts } from "@/lib/wing";
import { Accounts } from "./accounts";
import type { AccountsSettings } from "./settings";

// Accounts: who may come in and who they are (lib/accounts/accounts.ts). A
// person's id is the owner id of everything they keep, so no thread hook is
// needed: a guest's rows become an account's through the thread repository's
// adopt, which runs every wing's.

/** What the accounts take from the app. */
interface AccountsApp {
  sessionSecret: SessionSecret;
  threads(): { adopt(from: string, to: string): Promise<void> };
  liveStore(): { runningThreadsOf(owner: string): Promise<string[]> };
  runtime(): { stop(owner: string, threadId: string): Promise<boolean> };
  rateLimits(): Pick<RateLimits, "mayMail" | "signInSucceeded">;
  budgetGroups(): { setClaimed(person: string, names: readonly string[]): Promise<void> };
}

const services = ({ config, pool }: WingParts<AccountsSettings>, app: AccountsApp) => ({
  /** Sign-in, the people of the install, and who each request is. */
  accounts: once(
    () =>
      new Accounts({
        settings: config,
        pool,
        secret: app.sessionSecret,
        adopt: (from, to) => app.threads().adopt(from, to),
        async stopTurnsOf(owner) {
          const threads = await app.liveStore().runningThreadsOf(owner);
          await Promise.all(threads.map((threadId) => app.runtime().stop(owner, threadId)));
        },
        limits: () => app.rateLimits(),
        setClaimedGroups: (person, names) => app.budgetGroups().setClaimed(person, names),
      }),
  ),
});

export const accountsWing: Wing<AccountsApp, ReturnType<typeof services>, AccountsSettings> = {
  name: "accounts",
  tables: ["auth_users", "auth_sessions", "auth_accounts", "auth_verifications", "auth_passkeys", "auth_invites", "auth_first_admin"],
  services,
};
