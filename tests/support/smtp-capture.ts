import net from "node:net";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

// A real SMTP server on loopback that keeps what it is sent, for the tests of
// the mails of sign-in (a reset link, a sign-in link). Plain Node (no test
// runner's imports), so a Vitest file and a Playwright spec can both start
// one. It asks for a login (the user and password of its URL) as a provider
// would, and offers no STARTTLS (it has no certificate a client would trust).

export interface CapturedMail {
  from: string;
  to: string[];
  subject: string;
  /** The body, its transfer encoding undone. */
  text: string;
}

export interface SmtpCapture {
  /** smtp://user:password@127.0.0.1:port, for SMTP_URL. */
  url: string;
  port: number;
  /** Every mail taken, in order. */
  mails: CapturedMail[];
  /** Logins refused (a wrong user or password). */
  refusedLogins: number;
  /** The first mail to `to` taken since the capture started, once one is. */
  mailTo(to: string): Promise<CapturedMail>;
  close(): Promise<void>;
}

/** The link in a mail's text that starts with `prefix` (an address). */
export function linkIn(mail: CapturedMail, prefix: string): string {
  const found = mail.text.split(/\s+/).find((word) => word.startsWith(prefix));
  if (!found) throw new Error(`No link starting ${prefix} in the mail "${mail.subject}":\n${mail.text}`);
  return found;
}

function decodeBody(headers: Map<string, string>, body: string): string {
  const encoding = headers.get("content-transfer-encoding")?.toLowerCase();
  if (encoding === "base64") return Buffer.from(body, "base64").toString("utf8");
  if (encoding === "quoted-printable") {
    const bytes = body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, "latin1").toString("utf8");
  }
  return body;
}

/** A single-part text mail's subject and body (the mails of sign-in are no more). */
function parse(raw: string, from: string, to: string[]): CapturedMail {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
  const headers = new Map<string, string>();
  for (const line of head.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const text = decodeBody(headers, raw.slice(split + 4)).replace(/\r\n/g, "\n").trimEnd();
  return { from, to, subject: headers.get("subject") ?? "", text };
}

export async function startSmtpCapture({ user = "threadline", pass = "capture-pass-0123" } = {}): Promise<SmtpCapture> {
  const mails: CapturedMail[] = [];
  const waiting: { to: string; resolve: (mail: CapturedMail) => void }[] = [];
  const capture = { refusedLogins: 0 };
  const server = new SMTPServer({
    logger: false,
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    authMethods: ["PLAIN", "LOGIN"],
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === pass) return callback(null, { user });
      capture.refusedLogins++;
      callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
        const mail = parse(Buffer.concat(chunks).toString("utf8"), from, session.envelope.rcptTo.map((r) => r.address));
        mails.push(mail);
        for (const waiter of waiting.filter((w) => mail.to.includes(w.to))) {
          waiting.splice(waiting.indexOf(waiter), 1);
          waiter.resolve(mail);
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${port}`,
    port,
    mails,
    get refusedLogins() {
      return capture.refusedLogins;
    },
    mailTo(to) {
      const taken = mails.find((mail) => mail.to.includes(to));
      if (taken) return Promise.resolve(taken);
      return new Promise((resolve) => waiting.push({ to, resolve }));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A server that takes connections and never says a word, until it is closed:
 * an SMTP server stuck before its greeting.
 */
export async function startSilentServer(): Promise<{ port: number; connections: () => number; connected: Promise<void>; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let taken = 0;
  let firstConnection!: () => void;
  const connected = new Promise<void>((resolve) => (firstConnection = resolve));
  const server = net.createServer((socket) => {
    taken++;
    firstConnection();
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => taken,
    /** Resolves once someone has connected. */
    connected,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port nothing listens on: a mail server that is down. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
