import "server-only";
import { createTransport } from "nodemailer";
import type { MailSettings } from "./mail-settings";

// Mail goes out over SMTP with nodemailer: the SMTP client every Node mail
// library builds on, kept up (TLS, STARTTLS, AUTH, timeouts, cancelling one
// send), with no dependencies of its own. A mail is one connection, closed
// once sent (nothing to keep open between the rare resets), and is bounded by
// SMTP_TIMEOUT_SECONDS from connecting to the server's last reply: a stuck
// server costs a send that much, never a request (see account-mail.ts).

export interface Letter {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** True once the server took the mail; false, logged, when it could not be sent in time. Never throws. */
  send(letter: Letter): Promise<boolean>;
}

export function smtpMailer({ smtp, from, timeoutMs }: MailSettings, log: Pick<Console, "error"> = console): Mailer {
  const transport = createTransport(
    {
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      auth: smtp.auth,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      dnsTimeout: timeoutMs,
      // nodemailer logs nothing unless asked; its debug output would carry the AUTH exchange.
      logger: false,
      debug: false,
    },
    { from },
  );
  return {
    async send(letter) {
      try {
        await transport.sendMail({ ...letter, signal: AbortSignal.timeout(timeoutMs) });
        return true;
      } catch (error) {
        // The recipient stays out of the log; the error names the server's refusal or the timeout, never the password.
        const { code, message } = error as { code?: string; message?: string };
        log.error(`[mail] "${letter.subject}" was not sent: ${code ?? "error"} ${message ?? String(error)}`);
        return false;
      }
    },
  };
}
