import { route } from "@/lib/http/handler";
import { requestAddress } from "@/lib/http/client-address.mjs";
import { app } from "@/lib/app";
import { exportFilename } from "@/lib/threads/export";
import { SHARED_CACHE_CONTROL } from "@/lib/shares/shared-headers";

export const dynamic = "force-dynamic";

/** "Download as Markdown": what the shared page shows, as a transcript. */
export const GET = route<{ params: Promise<{ shareId: string }> }>(async (request, { params }) => {
  const { shareId } = await params;
  await app().rateLimits().limitShareView(requestAddress(request));
  const { title, text } = await app().shares().markdown(shareId);
  return new Response(text, {
    headers: {
      "Content-Type": "text/markdown; charset=utf-8",
      "Content-Disposition": `attachment; filename="${exportFilename(title, "md")}"`,
      "Cache-Control": SHARED_CACHE_CONTROL,
    },
  });
});
