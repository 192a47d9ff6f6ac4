import { deflateSync } from "node:zlib";

// Small real files for the attachment tests, made here byte by byte: a PNG of
// one colour and a one-page PDF with a line of text.

function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A width × height PNG of one RGB colour ("#rrggbb"). */
export function solidPng(color = "#3366cc", width = 4, height = 4): Buffer {
  const [r, g, b] = [1, 3, 5].map((at) => parseInt(color.slice(at, at + 2), 16));
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => [r, g, b]).flat())]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), chunk("IHDR", header), chunk("IDAT", deflateSync(pixels)), chunk("IEND", Buffer.alloc(0))]);
}

/** A one-page PDF whose page says `text` (ASCII, no parentheses) in Helvetica. */
export function textPdf(text: string): Buffer {
  const stream = `BT /F1 24 Tf 72 700 Td (${text}) Tj ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(out.length);
    out += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

/**
 * A PDF of one page per content stream (Helvetica as /F1), each stream
 * Flate-compressed (`/Filter /FlateDecode`), written byte by byte with a
 * correct cross-reference table.
 */
export function flatePdf(pages: Buffer[]): Buffer {
  const n = pages.length;
  // Objects: 1 catalog, 2 pages, 3 font, then each page and its contents.
  const kids = pages.map((_, i) => `${4 + 2 * i} 0 R`).join(" ");
  const objects: Buffer[] = [
    Buffer.from("<< /Type /Catalog /Pages 2 0 R >>"),
    Buffer.from(`<< /Type /Pages /Kids [${kids}] /Count ${n} >>`),
    Buffer.from("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"),
  ];
  for (const [i, content] of pages.entries()) {
    const stream = deflateSync(content, { level: 9 });
    objects.push(Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${5 + 2 * i} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`));
    objects.push(Buffer.concat([Buffer.from(`<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`), stream, Buffer.from("\nendstream")]));
  }
  const out: Buffer[] = [Buffer.from("%PDF-1.4\n")];
  let length = out[0].length;
  const offsets: number[] = [];
  for (const [i, object] of objects.entries()) {
    offsets.push(length);
    const bytes = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), object, Buffer.from("\nendobj\n")]);
    out.push(bytes);
    length += bytes.length;
  }
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("")}`;
  out.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  return Buffer.concat(out);
}

/** A page's content stream that shows `text` (ASCII, no parentheses). */
export const textPage = (text: string) => Buffer.from(`BT /F1 24 Tf 72 700 Td (${text}) Tj ET`);

/** A page's content stream of `bytes` bytes of text-showing operators: PDF.js works through each of them. */
export const busyPage = (bytes: number) => Buffer.from("BT /F1 12 Tf 72 700 Td (AAAAAAAA) Tj ET\n".repeat(Math.ceil(bytes / 40)));

/**
 * A PDF bomb: a few kilobytes whose one content stream inflates to `bytes`
 * (spaces around one line of text), as the one that held a server for
 * seconds when its text was read inside the upload.
 */
export const pdfBomb = (bytes: number) => flatePdf([Buffer.concat([textPage("Boom"), Buffer.alloc(bytes, 0x20)])]);
