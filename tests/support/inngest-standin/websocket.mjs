// Just enough of RFC 6455 to serve one kind of client: server-to-client text
// frames, plus close and ping handling. Written here because Node has a
// WebSocket client (undici) but no server, and the project has no `ws`.
import { createHash } from "node:crypto";

const HANDSHAKE_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const OP = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa };

/**
 * Completes the opening handshake on an HTTP upgrade and returns a connection,
 * or answers with an HTTP error and returns null when the request is not one.
 */
export function acceptWebSocket(req, socket, head) {
  const key = req.headers["sec-websocket-key"];
  if (req.headers.upgrade?.toLowerCase() !== "websocket" || typeof key !== "string") {
    rejectUpgrade(socket, 400, "expected a websocket upgrade");
    return null;
  }
  const accept = createHash("sha1").update(key + HANDSHAKE_GUID).digest("base64");
  socket.write(
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
      `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
  );
  const connection = new Connection(socket);
  if (head?.length) socket.unshift(head);
  return connection;
}

export function rejectUpgrade(socket, status, message) {
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${status === 401 ? "Unauthorized" : "Bad Request"}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

class Connection {
  #socket;
  #pending = Buffer.alloc(0);
  #closeSent = false;
  open = true;
  onclose = () => {};

  constructor(socket) {
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.on("data", (data) => this.#receive(data));
    // However the TCP connection ends (close handshake, reset, server
    // shutdown), the owner hears about it exactly once.
    socket.on("close", () => {
      if (!this.open) return;
      this.open = false;
      this.onclose();
    });
    socket.on("error", () => socket.destroy());
  }

  sendText(text) {
    if (this.open && !this.#closeSent) this.#socket.write(frame(OP.text, Buffer.from(text, "utf8")));
  }

  close(code = 1000, reason = "") {
    if (!this.open || this.#closeSent) return;
    this.#closeSent = true;
    const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
    payload.writeUInt16BE(code, 0);
    payload.write(reason, 2);
    this.#socket.write(frame(OP.close, payload));
    // A client that never answers the close frame must not keep the socket.
    setTimeout(() => this.#socket.destroy(), 1000).unref();
  }

  terminate() {
    this.#socket.destroy();
  }

  #receive(data) {
    this.#pending = Buffer.concat([this.#pending, data]);
    for (;;) {
      const parsed = parseFrame(this.#pending);
      if (parsed === "incomplete") return;
      if (parsed === "invalid") {
        this.close(1002, "protocol error");
        return;
      }
      this.#pending = this.#pending.subarray(parsed.length);
      if (parsed.opcode === OP.close) {
        // Echo the client's close (RFC 6455 §5.5.1), then end the TCP stream.
        if (!this.#closeSent) this.#socket.write(frame(OP.close, parsed.payload.subarray(0, 2)));
        this.#closeSent = true;
        this.#socket.end();
        return;
      }
      if (parsed.opcode === OP.ping) this.#socket.write(frame(OP.pong, parsed.payload));
      // Clients send nothing Threadline needs; data frames are dropped.
    }
  }
}

function frame(opcode, payload) {
  const length = payload.length;
  const header = length < 126 ? Buffer.alloc(2) : length < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  header[0] = 0x80 | opcode; // FIN: never fragmented
  if (length < 126) header[1] = length;
  else if (length < 65536) {
    header[1] = 126;
    header.writeUInt16BE(length, 2);
  } else {
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([header, payload]);
}

/** One frame from the front of `buffer`, unmasked. Clients must mask (RFC 6455 §5.1). */
function parseFrame(buffer) {
  if (buffer.length < 2) return "incomplete";
  const opcode = buffer[0] & 0x0f;
  if (!(buffer[1] & 0x80)) return "invalid";
  let length = buffer[1] & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buffer.length < 4) return "incomplete";
    length = buffer.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return "incomplete";
    length = Number(buffer.readBigUInt64BE(2));
    offset = 10;
  }
  if (buffer.length < offset + 4 + length) return "incomplete";
  const mask = buffer.subarray(offset, offset + 4);
  const payload = Buffer.from(buffer.subarray(offset + 4, offset + 4 + length));
  for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i % 4];
  return { opcode, payload, length: offset + 4 + length };
}
