import { jsonResponse, route } from "@/lib/http/handler";
import { app } from "@/lib/app";
import type { Me } from "@/lib/protocol/accounts";

export const dynamic = "force-dynamic";

export const GET = route(async (request) => jsonResponse((await app().accounts().me(request)) satisfies Me));
