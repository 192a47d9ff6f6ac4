import { app } from "@/lib/app";
import { jsonResponse } from "@/lib/http/handler";

export const dynamic = "force-dynamic";

export async function GET() {
  let database: "ok" | "unavailable" = "ok";
  try {
    await app.pool().query("SELECT 1");
  } catch (error) {
    console.error("[health] database check failed:", (error as Error).message);
    database = "unavailable";
  }
  const ok = database === "ok";
  // Which server worker answered (npm start runs one per core): how a test, or an operator, sees them all serve.
  const headers = { "x-worker": String(process.pid) };
  return jsonResponse({ status: ok ? "ok" : "degraded", runtime: app.runtime().name, database }, { status: ok ? 200 : 503, headers });
}
