// npm run migrate: apply pending migrations to DATABASE_URL (e.g. before a deploy).
import nextEnv from "@next/env";
import { DEFAULT_DATABASE_URL } from "../lib/db/default-url.mjs";
import { prepareDatabase } from "./prepare-db.mjs";

nextEnv.loadEnvConfig(process.cwd());
await prepareDatabase(process.env.DATABASE_URL || DEFAULT_DATABASE_URL);
