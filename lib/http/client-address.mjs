// The address a request came from. Next.js does not expose the socket to
// route handlers, and a client may send any X-Forwarded-For it likes, so the
// start script preloads scripts/client-address.mjs, which writes this header
// on every request from the socket (and the proxies the operator trusts),
// replacing whatever the client sent under that name.

export const CLIENT_ADDRESS_HEADER = "x-threadline-client-address";

/**
 * The client's address: the socket's peer, or, behind `trustedHops` reverse
 * proxies that each append to X-Forwarded-For, the entry that many places
 * from the right of the chain (entries further left are the client's to forge).
 */
export function clientAddressFrom(socketAddress, forwardedFor, trustedHops) {
  if (trustedHops <= 0) return socketAddress;
  const chain = [...String(forwardedFor ?? "").split(",").map((s) => s.trim()).filter(Boolean), socketAddress];
  return chain[Math.max(0, chain.length - 1 - trustedHops)];
}

/** The address the start script stamped on a request (undefined when it runs without the preload, as tests do). */
export function requestAddress(request) {
  return request.headers.get(CLIENT_ADDRESS_HEADER) ?? undefined;
}

// The socket's own peer, whatever X-Forwarded-For says: the proxy sign-in mode
// believes a proxy's header only from the addresses the operator lists.
export const PEER_ADDRESS_HEADER = "x-threadline-peer-address";

/** The address the start script stamped as the socket's peer (undefined without the preload). */
export function peerAddress(request) {
  return request.headers.get(PEER_ADDRESS_HEADER) ?? undefined;
}
