import "server-only";
import pg from "pg";

/** What else lives on the listener's connection: told each time it is opened again, and when it is lost. */
export interface ConnectionSession {
  take(client: pg.Client): Promise<void>;
  lost(): void;
}

/**
 * LISTENs on Postgres channels, on one connection of its own: a LISTEN lives
 * as long as its connection, and a pool's connections come and go. A dropped
 * connection (a restarted database, a network blip) is opened again after
 * `retryMs`; what was sent meanwhile is missed, so a listener is never the
 * only way a message arrives (a Stop is also found when the turn renews its
 * lease). The same connection carries the process's runner lock
 * (lib/db/runner-lock.ts), given as `session`: one connection per process for
 * both.
 */
export class NotificationListener {
  private client?: pg.Client;
  private closed = false;
  private timer?: NodeJS.Timeout;
  private failing = false;
  private readonly listening: Promise<void>;
  private heard!: () => void;

  constructor(
    private readonly connectionString: string,
    /** What to do with a notification's payload, by channel. */
    private readonly channels: Record<string, (payload: string) => void>,
    private readonly options: { retryMs?: number; session?: ConnectionSession } = {},
  ) {
    this.listening = new Promise((resolve) => (this.heard = resolve));
    void this.connect();
  }

  /** Resolves once the LISTEN is in force (the first time). */
  ready(): Promise<void> {
    return this.listening;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    this.options.session?.lost();
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, keepAlive: true });
    this.client = client;
    client.on("notification", (message) => {
      const handle = Object.hasOwn(this.channels, message.channel) ? this.channels[message.channel] : undefined;
      if (!handle || message.payload === undefined) return;
      try {
        handle(message.payload);
      } catch (error) {
        console.error(`[db] ${message.channel}: could not handle a notification:`, (error as Error).message);
      }
    });
    // Without a listener, an error event would end the process.
    client.on("error", (error) => this.lost(client, error));
    client.on("end", () => this.lost(client));
    try {
      await client.connect();
      await client.query(Object.keys(this.channels).map((channel) => `LISTEN ${pg.escapeIdentifier(channel)};`).join(" "));
      await this.options.session?.take(client);
      if (this.failing) console.error(`[db] listening on ${this.names()} again`);
      this.failing = false;
      this.heard();
    } catch (error) {
      this.lost(client, error as Error);
    }
  }

  private names(): string {
    return Object.keys(this.channels).join(", ");
  }

  private lost(client: pg.Client, error?: Error): void {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    this.options.session?.lost();
    void client.end().catch(() => {});
    // Said once per outage, not once per attempt.
    if (!this.failing) console.error(`[db] not listening on ${this.names()}; trying again:`, error?.message ?? "the connection ended");
    this.failing = true;
    this.timer = setTimeout(() => void this.connect(), this.options.retryMs ?? 1_000);
    this.timer.unref();
  }
}
