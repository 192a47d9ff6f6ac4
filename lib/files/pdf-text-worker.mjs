// Reads one PDF's text inside a worker thread (lib/files/pdf-text.ts starts
// it with memory limits and a hard time limit, and terminates it past them),
// so that a PDF built to inflate or to keep PDF.js busy costs this thread,
// never a server's event loop. Plain ESM, loaded by path at run time: the
// standalone build ships it, and the unpdf it imports, through the start
// script's trace (scripts/standalone.mjs).
//
// In: workerData { bytes (an ArrayBuffer, transferred), maxPages,
// maxInflatedBytes, maxChars }. Out: one message, { text } (null: the PDF
// holds none, a scan say) or { refused } (why its text is not read).
import { parentPort, workerData } from "node:worker_threads";
import { constants, inflateSync } from "node:zlib";

const { bytes, maxPages, maxInflatedBytes, maxChars } = workerData;

/**
 * Whether the PDF's Flate streams, images aside, inflate to more than
 * `limit` bytes together: PDF.js inflates a content stream whole before it
 * reads a word of it, so a few kilobytes can ask it for gigabytes. Each
 * stream is inflated here with what is left of the limit as its cap, so the
 * scan itself never holds more than the limit. A stream behind another
 * filter is not counted: the memory and time limits bound what it costs.
 */
function inflatesPast(pdf, limit) {
  const text = pdf.toString("latin1");
  const starts = /(?<!end)stream\r?\n/g;
  let left = limit;
  for (let match; (match = starts.exec(text)); ) {
    const dict = text.slice(Math.max(0, text.lastIndexOf("obj", match.index)), match.index);
    if (!/\/Filter\s*(\[\s*)?\/FlateDecode/.test(dict) || /\/Subtype\s*\/Image/.test(dict)) continue;
    const start = match.index + match[0].length;
    const declared = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dict);
    const end = declared ? Math.min(text.length, start + Number(declared[1])) : text.indexOf("endstream", start);
    if (end <= start) continue;
    try {
      left -= inflateSync(pdf.subarray(start, end), { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: left + 1 }).length;
    } catch (error) {
      if (error.code === "ERR_BUFFER_TOO_LARGE") return true;
      // A broken stream: PDF.js makes of it what it can, within the other limits.
      continue;
    }
    if (left < 0) return true;
    starts.lastIndex = end;
  }
  return false;
}

async function read() {
  const pdf = Buffer.from(bytes);
  if (inflatesPast(pdf, maxInflatedBytes)) return { refused: `its streams inflate to more than ${Math.round(maxInflatedBytes / 1024 / 1024)} MB` };
  const { extractText, getDocumentProxy } = await import("unpdf");
  const document = await getDocumentProxy(new Uint8Array(pdf));
  try {
    if (document.numPages > maxPages) return { refused: `it has ${document.numPages} pages, more than the ${maxPages} read here` };
    const { text } = await extractText(document, { mergePages: true });
    const trimmed = text.replace(/\u0000/g, "").trim();
    return { text: trimmed === "" ? null : trimmed.slice(0, maxChars) };
  } finally {
    await document.destroy();
  }
}

read().then(
  (result) => parentPort.postMessage(result),
  // A PDF that PDF.js cannot open: nothing to read, as for a scan.
  (error) => parentPort.postMessage({ text: null, unreadable: String(error?.message ?? error) }),
);
