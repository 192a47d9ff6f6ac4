import "server-only";

/**
 * An upload's bytes, gathered into one buffer as they arrive: sized by the
 * body's declared length when it has one (the bytes are then held once, each
 * chunk let go as soon as it is copied in), grown by half again when it has
 * none or sends more. The buffer is what is stored: no chunk list joined at
 * the end, which held every byte twice.
 */
export class UploadBytes {
  private buffer: Buffer;
  private length = 0;

  constructor(declared: number | undefined, private readonly maxBytes: number) {
    this.buffer = Buffer.allocUnsafe(declared !== undefined && declared > 0 ? Math.min(declared, maxBytes) : 64 * 1024);
  }

  add(chunk: Uint8Array): void {
    const needed = this.length + chunk.byteLength;
    if (needed > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.maxBytes, Math.max(needed, Math.ceil(this.buffer.length * 1.5))));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    this.buffer.set(chunk, this.length);
    this.length = needed;
  }

  /** The bytes received: a view of the buffer, not a copy. */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}
