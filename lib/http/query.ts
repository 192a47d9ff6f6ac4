import "server-only";
import type { z } from "zod";
import { validationError } from "@/lib/http/body";

/**
 * The URL's search parameters named in `names` (one that is absent as
 * undefined, so the schema's defaults apply), validated by `schema`; a 400
 * saying which is wrong otherwise.
 */
export function readQuery<S extends z.ZodType>(request: Request, schema: S, names: readonly string[]): z.infer<S> {
  const search = new URL(request.url).searchParams;
  const parsed = schema.safeParse(Object.fromEntries(names.map((name) => [name, search.get(name) ?? undefined])));
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}
