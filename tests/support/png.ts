import { inflateSync } from "node:zlib";
import { expect } from "vitest";

/** A PNG's width and height, from its header; throws on anything that is not a PNG. */
export async function pngSize(response: Response): Promise<{ width: number; height: number }> {
  const bytes = Buffer.from(await response.arrayBuffer());
  expect(bytes.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
  expect(bytes.subarray(12, 16).toString("ascii")).toBe("IHDR");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** An 8-bit RGBA PNG's pixels, decoded with node:zlib (no image library is a dependency), as "#rrggbb" by place. */
export async function pngPixels(response: Response): Promise<{ width: number; at: (x: number, y: number) => string }> {
  const bytes = Buffer.from(await response.arrayBuffer());
  const width = bytes.readUInt32BE(16);
  expect([bytes[24], bytes[25]], "8-bit RGBA").toEqual([8, 6]);
  const chunks: Buffer[] = [];
  for (let at = 8; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    if (bytes.subarray(at + 4, at + 8).toString("ascii") === "IDAT") chunks.push(bytes.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(chunks));
  const stride = width * 4 + 1;
  // Undo each row's filter (PNG filter types 0-4) into plain RGBA.
  const out = Buffer.alloc(width * 4 * (raw.length / stride));
  for (let y = 0; y < raw.length / stride; y++) {
    const filter = raw[y * stride];
    for (let x = 0; x < width * 4; x++) {
      const value = raw[y * stride + 1 + x];
      const left = x >= 4 ? out[y * width * 4 + x - 4] : 0;
      const up = y > 0 ? out[(y - 1) * width * 4 + x] : 0;
      const upLeft = x >= 4 && y > 0 ? out[(y - 1) * width * 4 + x - 4] : 0;
      const paeth = () => {
        const p = left + up - upLeft;
        const [a, b, c] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        return a <= b && a <= c ? left : b <= c ? up : upLeft;
      };
      const predictor = [0, left, up, (left + up) >> 1, filter === 4 ? paeth() : 0][filter];
      out[y * width * 4 + x] = (value + predictor) & 0xff;
    }
  }
  return {
    width,
    at: (x, y) => `#${out.subarray((y * width + x) * 4, (y * width + x) * 4 + 3).toString("hex")}`,
  };
}
