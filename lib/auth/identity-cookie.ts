import { IDENTITY_COOKIE, IDENTITY_MAX_AGE_SECONDS } from "./identity";

/** How the identity cookie is set, wherever it is set (a first visit, a device link). */
export function identityCookie(value: string, https: boolean) {
  return {
    name: IDENTITY_COOKIE,
    value,
    httpOnly: true,
    sameSite: "lax" as const,
    secure: https,
    path: "/",
    maxAge: IDENTITY_MAX_AGE_SECONDS,
  };
}

/** Whether the browser reached the app over TLS (directly or through a proxy that says so). */
export function isHttps(request: Request): boolean {
  return new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
}
