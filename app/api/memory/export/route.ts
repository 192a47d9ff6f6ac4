import { route } from "@/lib/http/handler";
import { app } from "@/lib/app";

export const dynamic = "force-dynamic";

/** The caller's memories as a file (a download), which POST /api/memory/import takes back. */
export const GET = route(async (request) => {
  const owner = await app().requireOwner(request);
  const file = await app().memories().exportAll(owner);
  return new Response(JSON.stringify(file, null, 2), {
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": 'attachment; filename="threadline-memories.json"',
      "Cache-Control": "no-store",
    },
  });
});
