import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres } from "@/lib/db/embedded.mjs";
import { migrate } from "@threadline/history/migrate";
import type { App } from "@/lib/app";
import { testApp } from "../support/test-app";

// The embedded Postgres is one server session for every connection, so a
// statement prepared under a name outlives the connection that made it. The
// app's pool drops idle connections; the next one must still count.
let stop: () => Promise<void>;
let app: App;
const limitChatTurn = (owner: string, address: string | undefined) => app.rateLimits().limitChatTurn(owner, address);

beforeAll(async () => {
  const embedded = await startEmbeddedPostgres();
  stop = embedded.stop;
  await migrate(embedded.url);
  app = testApp({ settings: { DATABASE_URL: embedded.url, DATABASE_POOL_SIZE: "1", RATE_LIMIT_CHAT_PER_MINUTE: "3" } });
});
afterAll(async () => {
  await app.close();
  await stop();
});

describe("rate limits on the embedded Postgres", () => {
  it("keep counting on a new connection after the pool dropped the old one", async () => {
    await limitChatTurn("someone", undefined);
    const connection = await app.pool().connect();
    connection.release(true); // destroyed, as the pool does with an idle connection
    await limitChatTurn("someone", undefined);
    await limitChatTurn("someone", undefined);
    await expect(limitChatTurn("someone", undefined)).rejects.toMatchObject({ code: "rate_limited:chatPerIdentity" });
  });
});
