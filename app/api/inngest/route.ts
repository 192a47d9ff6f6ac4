import { serve } from "inngest/next";
import { app } from "@/lib/app";
import { AppError } from "@/lib/errors";
import { errorResponse } from "@/lib/http/handler";
import { inngest } from "@/lib/inngest/client";
import { inngestConfigured } from "@/lib/inngest/settings";

// Inngest calls this endpoint to run the functions' steps. Without Inngest
// configured the endpoint does not exist: 404, not the SDK's 500.
const handlers = serve({ client: inngest, functions: app.inngestFunctions() });

type Handler = (typeof handlers)["GET"];
const whenConfigured =
  (handler: Handler): Handler =>
  (...args) =>
    inngestConfigured() ? handler(...args) : Promise.resolve(errorResponse(new AppError("not_found:route", "Inngest is not configured on this server.")));

export const GET = whenConfigured(handlers.GET);
export const POST = whenConfigured(handlers.POST);
export const PUT = whenConfigured(handlers.PUT);
