import { app } from "@/lib/app";
import { jsonResponse, route } from "@/lib/http/handler";
import type { ModelsResponse } from "@/lib/protocol/models";

export const dynamic = "force-dynamic";

/** The models on offer, the default first: the operator's MODELS, else what the credentials allow. */
export const GET = route(async () => jsonResponse({ models: app().models() } satisfies ModelsResponse));
