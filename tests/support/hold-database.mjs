// Opens the app's database the way `npm start` does (DATABASE_URL, or the
// embedded Postgres in EMBEDDED_DB_DIR), migrated, and keeps it open until
// SIGTERM: for a test that kills and restarts the app server by itself while
// the database stays up. Prints one line: DATABASE_URL=<url> POOL=<size>.
import { openDatabase } from "../../scripts/database.mjs";

const database = await openDatabase();
console.log(`DATABASE_URL=${process.env.DATABASE_URL} POOL=${process.env.DATABASE_POOL_SIZE ?? 10}`);
process.on("SIGTERM", async () => {
  await database.close();
  process.exit(0);
});
