import { serve } from "inngest/next";
import { app, type App } from "@/lib/app";
import { AppError } from "@threadline/history/errors";
import { errorResponse } from "@/lib/http/handler";
import { inngestFunctions } from "@/inngest";

// Inngest calls this endpoint to run the functions' steps. Without Inngest
// configured the endpoint does not exist: 404, not the SDK's 500.
const served = new WeakMap<App, ReturnType<typeof serve>>();
const handlersOf = (current: App) => {
  let handlers = served.get(current);
  if (!handlers) served.set(current, (handlers = serve({ client: current.inngest(), functions: inngestFunctions(current) })));
  return handlers;
};

type Handler = ReturnType<typeof serve>["GET"];
const whenConfigured =
  (method: "GET" | "POST" | "PUT"): Handler =>
  (...args) => {
    const current = app();
    return current.inngestConfigured()
      ? handlersOf(current)[method](...args)
      : Promise.resolve(errorResponse(new AppError("not_found:route", "Inngest is not configured on this server.")));
  };

export const GET = whenConfigured("GET");
export const POST = whenConfigured("POST");
export const PUT = whenConfigured("PUT");
