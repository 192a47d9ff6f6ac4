import type { Metadata } from "next";
import { ClaimDeviceLink } from "@/components/ui/ClaimDeviceLink";

export const metadata: Metadata = { title: "Use on this device" };

export default function LinkPage() {
  return <ClaimDeviceLink />;
}
