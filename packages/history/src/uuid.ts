// The one definition of an id the app accepts (threads, identities): an RFC
// 9562 UUID in either case, the pattern zod's z.uuid() checks, so that the API,
// the thread page and the identity cookie agree on which ids can exist.
// Isomorphic and free of zod: the proxy and pages test ids without loading a
// validator.

export const UUID = /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
