import { route } from "@/lib/http/handler";
import { authRoute } from "@/lib/accounts/auth-route";
import { app } from "@/lib/app";

export const dynamic = "force-dynamic";

export const GET = route((request) => authRoute(app(), request));
export const POST = route((request) => authRoute(app(), request));
