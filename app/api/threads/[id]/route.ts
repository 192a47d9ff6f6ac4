import { readJson } from "@/lib/http/body";
import { jsonResponse, route } from "@/lib/http/handler";
import { threadIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";
import { renameThreadSchema } from "../schema";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const GET = route<Context>(async (request, { params }) => {
  const id = threadIdParam((await params).id);
  const owner = await app().requireOwner(request);
  return jsonResponse({ thread: await app().threads().get(owner, id) });
});

export const PATCH = route<Context>(async (request, { params }) => {
  const id = threadIdParam((await params).id);
  const { title } = await readJson(request, renameThreadSchema, 16 * 1024);
  const owner = await app().requireOwner(request);
  return jsonResponse({ thread: await app().threads().rename(owner, id, title) });
});

export const DELETE = route<Context>(async (request, { params }) => {
  const id = threadIdParam((await params).id);
  const owner = await app().requireOwner(request);
  await app().threads().delete(owner, id);
  return new Response(null, { status: 204 });
});
