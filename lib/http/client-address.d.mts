export const CLIENT_ADDRESS_HEADER: string;
export function clientAddressFrom(socketAddress: string | undefined, forwardedFor: string | string[] | undefined, trustedHops: number): string | undefined;
export function requestAddress(request: Request): string | undefined;
export const PEER_ADDRESS_HEADER: string;
export function peerAddress(request: Request): string | undefined;
