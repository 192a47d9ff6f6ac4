import "server-only";
import pg from "pg";

/**
 * LISTENs on one Postgres channel, on a connection of its own: a LISTEN lives
 * as long as its connection, and a pool's connections come and go. A dropped
 * connection (a restarted database, a network blip) is opened again after
 * `retryMs`; what was sent meanwhile is missed, so a listener is never the
 * only way a message arrives (a Stop is also found when the turn renews its
 * lease).
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
    private readonly channel: string,
    private readonly onPayload: (payload: string) => void,
    private readonly retryMs = 1_000,
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
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, keepAlive: true });
    this.client = client;
    client.on("notification", (message) => {
      if (message.channel !== this.channel || message.payload === undefined) return;
      try {
        this.onPayload(message.payload);
      } catch (error) {
        console.error(`[db] ${this.channel}: could not handle a notification:`, (error as Error).message);
      }
    });
    // Without a listener, an error event would end the process.
    client.on("error", (error) => this.lost(client, error));
    client.on("end", () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(this.channel)}`);
      if (this.failing) console.error(`[db] listening on ${this.channel} again`);
      this.failing = false;
      this.heard();
    } catch (error) {
      this.lost(client, error as Error);
    }
  }

  private lost(client: pg.Client, error?: Error): void {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    void client.end().catch(() => {});
    // Said once per outage, not once per attempt.
    if (!this.failing) console.error(`[db] not listening on ${this.channel}; trying again:`, error?.message ?? "the connection ended");
    this.failing = true;
    this.timer = setTimeout(() => void this.connect(), this.retryMs);
    this.timer.unref();
  }
}
