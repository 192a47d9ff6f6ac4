import { app } from "@/lib/app";
import { jsonResponse } from "@/lib/http/handler";

export const dynamic = "force-dynamic";

/** What a load balancer needs: whether this server can serve (its database answers), and which runtime runs its turns. Nothing more. */
export async function GET() {
  let database: "ok" | "unavailable" = "ok";
  try {
    await app().pool().query("SELECT 1");
  } catch (error) {
    console.error("[health] database check failed:", (error as Error).message);
    database = "unavailable";
  }
  const ok = database === "ok";
  // Which server worker answered, only when the operator asks (WORKER_HEADER): how a test, or an operator, sees them all serve.
  const headers = app().config.WORKER_HEADER ? { "x-worker": String(process.pid) } : undefined;
  return jsonResponse({ status: ok ? "ok" : "degraded", runtime: app().runtime().name, database }, { status: ok ? 200 : 503, headers });
}
