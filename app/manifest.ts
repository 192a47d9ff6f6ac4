import type { MetadataRoute } from "next";
import { BRAND } from "@/lib/brand";

// What a phone needs to put Threadline on its home screen: a name, colours and icons (app/icon.tsx).
export default function manifest(): MetadataRoute.Manifest {
  const icons = [192, 512].flatMap((size) =>
    (["any", "maskable"] as const).map((purpose) => ({ src: `/icon/${size}`, sizes: `${size}x${size}`, type: "image/png", purpose })),
  );
  return {
    name: BRAND.name,
    short_name: BRAND.name,
    description: BRAND.description,
    start_url: "/",
    scope: "/",
    display: "standalone",
    background_color: BRAND.background,
    theme_color: BRAND.background,
    icons,
  };
}
