import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres } from "@/lib/db/embedded.mjs";
import { migrate } from "@/lib/db/migrate.mjs";

// The embedded Postgres is one server session for every connection, so a
// statement prepared under a name outlives the connection that made it. The
// app's pool drops idle connections; the next one must still count.
let stop: () => Promise<void>;
let limitChatTurn: typeof import("@/lib/rate-limit").limitChatTurn;
let getPool: typeof import("@/lib/db/pool").getPool;

beforeAll(async () => {
  const embedded = await startEmbeddedPostgres();
  stop = embedded.stop;
  await migrate(embedded.url);
  Object.assign(process.env, { DATABASE_URL: embedded.url, DATABASE_POOL_SIZE: "1", RATE_LIMIT_CHAT_PER_MINUTE: "3" });
  ({ limitChatTurn } = await import("@/lib/rate-limit"));
  ({ getPool } = await import("@/lib/db/pool"));
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
