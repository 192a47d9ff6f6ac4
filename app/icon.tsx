import { ImageResponse } from "next/og";
import { markDataUri } from "@/lib/brand";

// The app icon, drawn from the one mark at the sizes browsers and launchers
// ask for: /icon/32 for a tab (also served as /favicon.ico, see
// next.config.ts), /icon/192 and /icon/512 for the web app manifest.
const SIZES = [32, 192, 512] as const;

export function generateImageMetadata() {
  return SIZES.map((size) => ({ id: String(size), size: { width: size, height: size }, contentType: "image/png" }));
}

export default async function Icon({ id }: { id: Promise<string> }) {
  const size = Number(await id);
  // A tab shows the mark on its own, with rounded corners; a launcher cuts a square to its own shape.
  const src = markDataUri({ rounded: size <= 32 });
  return new ImageResponse(<img src={src} width={size} height={size} alt="" />, { width: size, height: size });
}
