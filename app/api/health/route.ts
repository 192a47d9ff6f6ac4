import { getPool } from "@/lib/db/pool";
import { jsonResponse } from "@/lib/http/handler";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

export async function GET() {
  let database: "ok" | "unavailable" = "ok";
  try {
    await getPool().query("SELECT 1");
  } catch (error) {
    console.error("[health] database check failed:", (error as Error).message);
    database = "unavailable";
  }
  const ok = database === "ok";
  return jsonResponse({ status: ok ? "ok" : "degraded", runtime: getRuntime().name, database }, { status: ok ? 200 : 503 });
}
