import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An HTTP server for `handle` on `host`:`port` (0: a free one), with the port
 * it listens on once it does. A request whose handling throws is answered 500
 * when nothing was sent yet, so a test server's own bug shows as an answer.
 */
export function listenHttp(
  handle: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<unknown>,
  port: number,
  host: string,
): Promise<{ server: http.Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = http.createServer((req, res) => {
      handle(req, res).catch((error) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
      });
    });
    server.once("error", reject);
    server.listen(port, host, () => resolve({ server, port: (server.address() as AddressInfo).port }));
  });
}
