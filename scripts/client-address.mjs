// Preloaded into the Next.js server by the start script (node --import): stamps
// every incoming request with the client's address, and the socket's peer,
// before Next.js sees it (replacing whatever the client sent under those names).
// Node publishes each request on this diagnostics channel before any handler
// runs. TRUSTED_PROXY_HOPS is how many reverse proxies in front of the app
// append to X-Forwarded-For (0: the app is reached directly).
import { subscribe } from "node:diagnostics_channel";
import { CLIENT_ADDRESS_HEADER, PEER_ADDRESS_HEADER, clientAddressFrom } from "../lib/http/client-address.mjs";

const hops = Number(process.env.TRUSTED_PROXY_HOPS ?? 0);
if (!Number.isInteger(hops) || hops < 0) {
  console.error(`[threadline] TRUSTED_PROXY_HOPS must be a whole number ≥ 0, not "${process.env.TRUSTED_PROXY_HOPS}".`);
  process.exit(1);
}

subscribe("http.server.request.start", ({ request, socket }) => {
  const address = clientAddressFrom(socket.remoteAddress, request.headers["x-forwarded-for"], hops);
  if (address) request.headers[CLIENT_ADDRESS_HEADER] = address;
  else delete request.headers[CLIENT_ADDRESS_HEADER];
  if (socket.remoteAddress) request.headers[PEER_ADDRESS_HEADER] = socket.remoteAddress;
  else delete request.headers[PEER_ADDRESS_HEADER];
});
