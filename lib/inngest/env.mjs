// Which runtime the environment asks for, and whether it may: plain
// JavaScript, because the start script (plain Node) decides before Next.js
// starts and the server decides again at run time. Being plain Node, it reads
// process.env itself when called without variables (the start script); the app
// hands it lib/env.ts's values instead.

const isSet = (value) => Boolean(value && !["0", "false"].includes(value.trim().toLowerCase()));

/**
 * Inngest runs turns when a dev server is configured (INNGEST_DEV=1 or its
 * URL) or when the keys of a self-hosted or cloud Inngest are set; otherwise
 * the turn runs inline, in this process.
 */
export function inngestConfigured(env = process.env) {
  return isSet(env.INNGEST_DEV) || Boolean(env.INNGEST_EVENT_KEY && env.INNGEST_SIGNING_KEY);
}

/**
 * In dev mode the Inngest SDK runs any request to /api/inngest without a
 * signature, and a dev server takes events without a key. That is right on a
 * developer's machine and wrong on a server, so a production start with
 * INNGEST_DEV is refused unless INNGEST_DEV_IS_LOCAL=1 says the dev server and
 * the app are reachable only from this machine. Returns the reason, or undefined.
 */
export function inngestDevRefusal(env = process.env) {
  if (env.NODE_ENV !== "production" || !isSet(env.INNGEST_DEV) || isSet(env.INNGEST_DEV_IS_LOCAL)) return undefined;
  return (
    "INNGEST_DEV is set in production. In dev mode /api/inngest runs unsigned requests, so anyone who can reach the app " +
    "or the dev server can write into any thread. Run a self-hosted Inngest (`inngest start`) and set INNGEST_BASE_URL, " +
    "INNGEST_EVENT_KEY and INNGEST_SIGNING_KEY instead (docker-compose.yml does), or, if the dev server and this app are " +
    "reachable only from this machine, set INNGEST_DEV_IS_LOCAL=1."
  );
}
