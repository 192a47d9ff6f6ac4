import { app } from "@/lib/app";
import { jsonResponse, route } from "@/lib/http/handler";
import { modelOptions } from "@/lib/model-list";
import type { ModelsResponse } from "@/lib/protocol/models";

export const dynamic = "force-dynamic";

/** The models on offer, the default first: the operator's MODELS, else what the credentials allow. */
export const GET = route(async () => jsonResponse({ models: modelOptions(app().config) } satisfies ModelsResponse));
