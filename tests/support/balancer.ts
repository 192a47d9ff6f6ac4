/**
 * The Inngest stand-in's way to two or more app servers' serve endpoints, as
 * behind a balancer: each request to the next server in turn, over HTTP, and
 * to the one after when a server refuses the connection (a killed one). A
 * request a server took and then dropped (killed while it ran) is not sent
 * again, as a balancer does not resend a POST it has delivered: the stand-in
 * sees the attempt fail and retries it with the steps memoized since, as
 * Inngest does. `open` counts each server's requests not yet answered, by
 * port: a step runs inside its request, so the server that holds one is the
 * server running it.
 */
export function balancer(ports: number[]) {
  const open = new Map<number, number>();
  let next = 0;
  const fetchApp = async (request: Request) => {
    const body = request.method === "GET" ? undefined : await request.text();
    const url = new URL(request.url);
    for (let tries = 0; ; tries++) {
      const port = ports[next++ % ports.length];
      open.set(port, (open.get(port) ?? 0) + 1);
      try {
        return await fetch(`http://127.0.0.1:${port}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body });
      } catch (error) {
        if (tries >= ports.length || !refused(error)) throw error;
      } finally {
        open.set(port, open.get(port)! - 1);
      }
    }
  };
  return { fetch: fetchApp, open };
}

/** Nothing reached the server: it was not listening. */
const refused = (error: unknown) => (error as { cause?: { code?: string } })?.cause?.code === "ECONNREFUSED";
