import "server-only";
import { BRAND } from "@/lib/brand";
import type { Letter, Mailer } from "./mail";

// The mails of sign-in: a password reset link and a sign-in link. Better Auth
// calls these as it answers a request, for a known email only (a reset) or for
// any (a sign-in link); each returns at once and does its work after the
// answer, so neither the answer nor its time says whether an account has the
// email, whether a mail went, or whether the mail server is up. Only an active
// account is mailed, and each email at most RATE_LIMIT_MAILS_PER_HOUR_PER_EMAIL
// times an hour, however many ask.

/** How long a reset link works. */
export const RESET_LINK_SECONDS = 60 * 60;
/** How long a sign-in link works: long enough for a slow mail, short for a link in an inbox. */
export const SIGN_IN_LINK_SECONDS = 15 * 60;

export interface AccountMailDeps {
  mailer: Mailer;
  /** Counts one mail to the email: false once it has had its share. */
  mayMail(email: string): Promise<boolean>;
  /** The account with this email (any case), or null when none has it. */
  accountOf(email: string): Promise<{ email: string; status: string } | null>;
  /** APP_URL: the address the mails name. */
  appUrl: string;
  log?: Pick<Console, "error">;
}

export class AccountMail {
  private readonly running = new Set<Promise<void>>();
  private readonly site: string;

  constructor(private readonly deps: AccountMailDeps) {
    this.site = new URL(deps.appUrl).host;
  }

  /** Mails a reset link (Better Auth's sendResetPassword). */
  resetPassword(email: string, url: string): void {
    this.later(email, {
      subject: `Reset your ${BRAND.name} password`,
      text: [
        `Someone, we hope you, asked to reset the password of your account at ${this.site}.`,
        "",
        "Set a new password with this link. It works once, within an hour, and signs you out everywhere else:",
        url,
        "",
        "If you did not ask for it, ignore this mail: your password stays as it is.",
      ].join("\n"),
    });
  }

  /** Mails a sign-in link (the magic link plugin's sendMagicLink). */
  signInLink(email: string, url: string): void {
    this.later(email, {
      subject: `Your ${BRAND.name} sign-in link`,
      text: [
        `Sign in to ${this.site} with this link. It works once, within ${SIGN_IN_LINK_SECONDS / 60} minutes:`,
        url,
        "",
        "If you did not ask for it, ignore this mail.",
      ].join("\n"),
    });
  }

  /** Resolves once every mail begun so far is sent or given up (what a test waits for before it reads the mailbox). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  private later(email: string, letter: Omit<Letter, "to">): void {
    const work: Promise<void> = (async () => {
      const account = await this.deps.accountOf(email);
      if (account?.status !== "active") return;
      if (!(await this.deps.mayMail(account.email))) return;
      // To the address as the account keeps it, not as it was typed.
      await this.deps.mailer.send({ ...letter, to: account.email });
    })()
      .catch((error: unknown) => (this.deps.log ?? console).error(`[mail] "${letter.subject}" was not sent: ${(error as Error).message}`))
      .finally(() => this.running.delete(work));
    this.running.add(work);
  }
}
