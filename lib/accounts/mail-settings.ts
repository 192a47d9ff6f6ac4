import "server-only";
import { BRAND } from "@/lib/brand";
import { fail } from "@/lib/env";

// The mail settings of the accounts slice (lib/accounts/settings.ts): where
// resets and sign-in links go out, read from SMTP_URL without ever repeating
// its value (it holds a password).

/** One address, bare or with a display name; no line breaks (a header is made of it). */
export const MAIL_ADDRESS = /^(?:[^<>@\r\n]*<[^<>@\s]+@[^<>@\s]+\.[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+\.[^<>@\s]+)$/;

/** Where mail goes out, read from SMTP_URL. */
export interface SmtpServer {
  host: string;
  port: number;
  /** smtps: TLS from the first byte; smtp: STARTTLS when the server offers it. */
  secure: boolean;
  auth?: { user: string; pass: string };
}

export interface MailSettings {
  smtp: SmtpServer;
  from: string;
  timeoutMs: number;
}

/**
 * SMTP_URL read, or a start error that names what is wrong with it without
 * its value (the password is in it), and MAIL_FROM's default.
 */
export function mailSettings(settings: { SMTP_URL?: string; MAIL_FROM?: string; APP_URL?: string; SMTP_TIMEOUT_SECONDS: number }): MailSettings | undefined {
  if (!settings.SMTP_URL) return undefined;
  const shape = "smtp://user:password@mail.example.org:587 or smtps://user:password@mail.example.org:465";
  let parsed: URL | undefined;
  try {
    parsed = new URL(settings.SMTP_URL);
  } catch {
    // URL's own message quotes the input.
  }
  if (!parsed || !/^smtps?:$/.test(parsed.protocol) || !parsed.hostname) {
    fail(`SMTP_URL must be a mail server's URL, ${shape} (its value is not shown: it may hold a password).`);
  }
  const server = parsed!;
  if (server.username && !server.password) fail(`SMTP_URL names a user but no password: ${shape}.`);
  let auth: SmtpServer["auth"];
  try {
    auth = server.username ? { user: decodeURIComponent(server.username), pass: decodeURIComponent(server.password) } : undefined;
  } catch {
    fail("SMTP_URL's user or password has a % that is not followed by two hex digits: write a % in either as %25.");
  }
  if (!settings.APP_URL) fail("SMTP_URL needs APP_URL: the links in its mails must name the address people reach the server at.");
  const secure = server.protocol === "smtps:";
  return {
    smtp: { host: server.hostname.replace(/^\[|\]$/g, ""), port: server.port ? Number(server.port) : secure ? 465 : 587, secure, auth },
    from: settings.MAIL_FROM ?? `${BRAND.name} <no-reply@${new URL(settings.APP_URL!).hostname}>`,
    timeoutMs: settings.SMTP_TIMEOUT_SECONDS * 1000,
  };
}
