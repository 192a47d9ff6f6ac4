import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres } from "@/lib/db/embedded.mjs";
import { migrate } from "@/lib/db/migrate.mjs";

// The embedded Postgres is one server session for every connection, so a
// statement prepared under a name outlives the connection that made it. The
// app's pool drops idle connections; the next one must still count.
let stop: () => Promise<void>;
let limitChatTurn: (owner: string, address: string | undefined) => Promise<void>;
let getPool: typeof import("@/lib/app").app.pool;

beforeAll(async () => {
  const embedded = await startEmbeddedPostgres();
  stop = embedded.stop;
  await migrate(embedded.url);
  Object.assign(process.env, { DATABASE_URL: embedded.url, DATABASE_POOL_SIZE: "1", RATE_LIMIT_CHAT_PER_MINUTE: "3" });
  const { app } = await import("@/lib/app");
  limitChatTurn = (owner, address) => app.rateLimits().limitChatTurn(owner, address);
  getPool = app.pool;
});
afterAll(async () => {
  await getPool().end();
  await stop();
});

describe("rate limits on the embedded Postgres", () => {
  it("keep counting on a new connection after the pool dropped the old one", async () => {
    await limitChatTurn("someone", undefined);
    const connection = await getPool().connect();
    connection.release(true); // destroyed, as the pool does with an idle connection
    await limitChatTurn("someone", undefined);
    await limitChatTurn("someone", undefined);
    await expect(limitChatTurn("someone", undefined)).rejects.toMatchObject({ code: "rate_limited:chatPerIdentity" });
  });
});
