import { ensureDatabase, migrate, MigrationLockTimeout } from "../lib/db/migrate.mjs";

/** Creates the database if needed and applies pending migrations, with messages a new user can act on. */
export async function prepareDatabase(databaseUrl) {
  try {
    if (await ensureDatabase(databaseUrl)) console.log(`[threadline] created database ${redact(databaseUrl)}`);
    const applied = await migrate(databaseUrl);
    console.log(
      applied.length > 0
        ? `[threadline] applied migrations: ${applied.join(", ")}`
        : "[threadline] database schema is up to date",
    );
  } catch (error) {
    if (error instanceof MigrationLockTimeout) {
      console.error(`[threadline] cannot migrate the database at ${redact(databaseUrl)}: ${error.message}`);
      process.exit(1);
    }
    console.error(`\n[threadline] cannot prepare the database at ${redact(databaseUrl)}: ${error.message}`);
    console.error(
      "[threadline] start Postgres (docker compose up -d db) or set DATABASE_URL in .env to a server you can reach.\n",
    );
    process.exit(1);
  }
}

/** The URL with its password hidden, for messages. */
function redact(url) {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable DATABASE_URL)";
  }
}
