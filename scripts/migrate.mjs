// npm run migrate: apply pending migrations to DATABASE_URL (e.g. before a
// deploy), or to the embedded database when it is not set.
import nextEnv from "@next/env";
import { openDatabase } from "./database.mjs";

nextEnv.loadEnvConfig(process.cwd());
const database = await openDatabase();
await database.close();
