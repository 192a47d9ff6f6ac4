// A TCP proxy in front of Postgres that counts round trips: every simple
// query ('Q') and every Sync ('S', the end of an extended-protocol exchange)
// a client sends is one wait for the server. The benchmark points the app at
// it to count what a turn costs the database, without touching the app. A
// write of a running reply's progress (turn_progress, which no turn waits for)
// is counted apart: it is known by the text of its query. So are the
// server's once-a-second looks for due reminders and replies left undone
// (lib/runtime/due-work.ts): they run whether or not a turn does, and a turn
// of a second or more would otherwise count one or two of them as its own.
import net from "node:net";

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
/** The text of the due-work looks' statements: reminders due, replies waiting with every call decided. */
const BACKGROUND_LOOKS = ["threadline_post_due_reminders(", "WHERE m.status = 'waiting' AND m.part_index = 0"];

export async function startRoundTripCounter(upstreamUrl) {
  const upstream = new URL(upstreamUrl);
  let roundTrips = 0;
  let progressWrites = 0;
  let backgroundLooks = 0;
  const sockets = new Set();
  // Without noDelay on both sides, Nagle holds back the tail of a reply that
  // spans segments until the peer's delayed ACK (40 ms): a turn reading 25 KB
  // of memories measured 40 ms slower through the proxy than without it.
  const server = net.createServer({ noDelay: true }, (client) => {
    const database = net.connect({ port: Number(upstream.port || 5432), host: upstream.hostname, noDelay: true });
    sockets.add(client).add(database);
    let pending = Buffer.alloc(0);
    let startup = true;
    // The statement the next Sync ends (extended protocol: Parse, Bind, Execute, Sync) writes progress.
    let progressPending = false;
    let lookPending = false;
    client.on("data", (data) => {
      database.write(data);
      pending = Buffer.concat([pending, data]);
      for (;;) {
        // The startup packet (and an SSL or GSS request before it) has no type byte.
        if (startup) {
          if (pending.length < 8 || pending.length < pending.readInt32BE(0)) break;
          const code = pending.readInt32BE(4);
          pending = pending.subarray(pending.readInt32BE(0));
          if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) startup = false;
          continue;
        }
        if (pending.length < 5 || pending.length < 1 + pending.readInt32BE(1)) break;
        const type = String.fromCharCode(pending[0]);
        const length = pending.readInt32BE(1);
        if (type === "P" || type === "Q") {
          const body = pending.subarray(5, 1 + length).toString("utf8");
          if (body.includes("INSERT INTO turn_progress")) progressPending = true;
          if (BACKGROUND_LOOKS.some((text) => body.includes(text))) lookPending = true;
        }
        if (type === "Q" || type === "S") {
          if (progressPending) progressWrites++;
          else if (lookPending) backgroundLooks++;
          else roundTrips++;
          progressPending = false;
          lookPending = false;
        }
        pending = pending.subarray(1 + length);
      }
    });
    database.on("data", (data) => client.write(data));
    const end = () => {
      client.destroy();
      database.destroy();
      sockets.delete(client);
      sockets.delete(database);
    };
    client.on("close", end).on("error", end);
    database.on("close", end).on("error", end);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(upstreamUrl);
  url.hostname = "127.0.0.1";
  url.port = String(server.address().port);
  return {
    url: url.toString(),
    count: () => roundTrips,
    progressWrites: () => progressWrites,
    backgroundLooks: () => backgroundLooks,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
