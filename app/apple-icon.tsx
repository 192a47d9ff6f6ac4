import { ImageResponse } from "next/og";
import { markDataUri } from "@/lib/brand";

// The home-screen icon iOS asks for: square, opaque, its corners rounded by the system.
export const size = { width: 180, height: 180 };
export const contentType = "image/png";

export default function AppleIcon() {
  return new ImageResponse(<img src={markDataUri({ rounded: false })} width={size.width} height={size.height} alt="" />, size);
}
