import { ensureDatabase, migrate, MigrationLockTimeout } from "@threadline/history/migrate";

/** Creates the database if needed and applies pending migrations, with messages a new user can act on. */
export async function prepareDatabase(databaseUrl) {
  try {
    if (await ensureDatabase(databaseUrl)) console.log(`[threadline] created database ${redact(databaseUrl)}`);
    console.log(`[threadline] ${describeApplied(await migrate(databaseUrl))}`);
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

/** One line for what a migration run applied: a new database's whole history is a range, not a wall of names. */
export function describeApplied(applied) {
  const functions = applied.filter((name) => name.startsWith("db/functions/")).map((name) => name.slice("db/functions/".length));
  const migrations = applied.filter((name) => !name.startsWith("db/functions/"));
  const list = (names) => (names.length > 3 ? `${names[0]} … ${names.at(-1)} (${names.length})` : names.join(", "));
  const parts = [];
  if (migrations.length > 0) parts.push(`migrations: ${list(migrations)}`);
  if (functions.length > 0) parts.push(`database functions: ${functions.length > 3 ? functions.length : functions.join(", ")}`);
  return parts.length > 0 ? `applied ${parts.join("; ")}` : "database schema is up to date";
}
