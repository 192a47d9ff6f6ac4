import "server-only";
import type { z } from "zod";
import { limits } from "@/lib/limits";
import { AppError } from "@threadline/history/errors";
import { hasJsonContentType } from "@/lib/http/request-origin";

/** Reads the body as text, refusing more than maxBytes without buffering it all first. */
async function readLimited(request: Request, maxBytes: number): Promise<string> {
  const tooLarge = () => new AppError("payload_too_large:body", `The request body is larger than ${maxBytes} bytes.`);
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
}

/** Parses and validates a JSON body; every way it can be wrong is a 4xx with a message saying which. */
export async function readJson<S extends z.ZodType>(request: Request, schema: S, maxBytes = limits.maxBodyBytes): Promise<z.infer<S>> {
  const notJson = () => new AppError("unsupported_media_type:body", "Send the request body as application/json.");
  const typed = request.headers.has("content-type");
  if (typed && !hasJsonContentType(request.headers)) throw notJson();
  let text: string;
  try {
    text = await readLimited(request, maxBytes);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError("bad_request:body", "The request body is not valid UTF-8.");
  }
  // A body of no named type is no more JSON than one of another type; no body at all is a missing body.
  if (!typed) throw text === "" ? new AppError("bad_request:body", "This request needs a JSON body.") : notJson();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError("bad_request:json", "The request body is not valid JSON.");
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}

/**
 * Refuses a request whose body is not declared JSON, before any of it is read
 * (a body of no named type is no more JSON than one of another type; a
 * cross-site form cannot send one that is).
 */
export function requireJsonBody(request: Request): void {
  const typed = request.headers.has("content-type");
  if (!typed && !request.body) throw new AppError("bad_request:body", "This request needs a JSON body.");
  if (!typed || !hasJsonContentType(request.headers)) {
    throw new AppError("unsupported_media_type:body", "Send the request body as application/json.");
  }
  if (!request.body) throw new AppError("bad_request:body", "This request needs a JSON body.");
}

/** Refuses a body whose declared size (Content-Length) is over maxBytes, before any of it is read. */
export function refuseDeclaredSize(request: Request, maxBytes: number, tooLarge: () => AppError): void {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
}

/**
 * The body as it arrives, chunk by chunk, never more than maxBytes of it
 * (whatever it declared): past that the upload is cancelled and `tooLarge`
 * thrown. Nothing is buffered here.
 */
export async function* bodyChunks(request: Request, maxBytes: number, tooLarge: () => AppError): AsyncGenerator<Uint8Array> {
  refuseDeclaredSize(request, maxBytes, tooLarge);
  if (!request.body) return;
  const reader = request.body.getReader();
  let size = 0;
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        return;
      }
      size += next.value.byteLength;
      if (size > maxBytes) throw tooLarge();
      yield next.value;
    }
  } finally {
    // Stopped early (too large, or the reader gave up): the rest is not wanted.
    if (!done) await reader.cancel().catch(() => {});
  }
}

export function validationError(error: z.ZodError): AppError {
  const issue = error.issues[0];
  const where = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return new AppError("bad_request:validation", `${where}${issue.message}`);
}
