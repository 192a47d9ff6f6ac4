import "server-only";
import { BlockList, isIP } from "node:net";

/** Whether `address` is one of `entries` (addresses or CIDR networks), an IPv4-mapped IPv6 address counting as its IPv4 one. */
export function trustedAddresses(entries: readonly string[]): (address: string | undefined) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split("/");
    const type = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return (address) => {
    if (!address) return false;
    const plain = address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
    const family = isIP(plain);
    if (family === 0) return false;
    return list.check(plain, family === 6 ? "ipv6" : "ipv4");
  };
}
