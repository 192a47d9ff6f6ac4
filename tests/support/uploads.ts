import { expect } from "vitest";
import * as upload from "@/app/api/files/route";
import type { UploadedFile } from "@/lib/protocol/files";
import { request } from "./api";

/** POST /api/files as the composer sends a file: its bytes as the body, its name in a header. */
export function putFile(cookie: string, name: string, bytes: Buffer | string, headers: Record<string, string> = {}) {
  return upload.POST(
    request("/api/files", {
      method: "POST",
      cookie,
      body: typeof bytes === "string" ? bytes : new Uint8Array(bytes),
      headers: { "x-file-name": encodeURIComponent(name), "content-type": "application/octet-stream", ...headers },
    }),
    undefined as never,
  );
}

/** A file uploaded as `cookie`'s, which the server must take. */
export async function uploadedFile(cookie: string, name: string, bytes: Buffer | string): Promise<UploadedFile> {
  const response = await putFile(cookie, name, bytes);
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as UploadedFile;
}
