import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { z } from "zod";
import { isUuid } from "@threadline/history/uuid";

// The API, the thread page and the identity cookie all ask isUuid; it must
// accept exactly what zod's uuid format accepts, or a thread the API created
// could 404 on its own page (or the reverse).
describe("isUuid", () => {
  const zodUuid = z.uuid();
  const hex = fc.constantFrom(..."0123456789abcdefABCDEFg-".split(""));
  const uuidLike = fc
    .tuple(...[8, 4, 4, 4, 12].map((n) => fc.array(hex, { minLength: n, maxLength: n }).map((c) => c.join(""))))
    .map((groups) => groups.join("-"));

  it("agrees with zod's uuid format on UUIDs, near-misses and junk", () => {
    fc.assert(
      fc.property(fc.oneof(fc.uuid(), uuidLike, fc.string()), (value) => {
        expect(isUuid(value)).toBe(zodUuid.safeParse(value).success);
      }),
      { numRuns: 2000 },
    );
  });

  it("accepts either case and the nil and max UUIDs, and refuses a version-0 or padded one", () => {
    expect(isUuid("22222222-2222-4222-8222-222222222222")).toBe(true);
    expect(isUuid("ABCDEF12-3456-4789-ABCD-EF1234567890")).toBe(true);
    expect(isUuid("00000000-0000-0000-0000-000000000000")).toBe(true);
    expect(isUuid("ffffffff-ffff-ffff-ffff-ffffffffffff")).toBe(true);
    expect(isUuid("22222222-2222-0222-8222-222222222222")).toBe(false);
    expect(isUuid(" 22222222-2222-4222-8222-222222222222")).toBe(false);
    expect(isUuid("22222222-2222-4222-8222-222222222222\n")).toBe(false);
  });
});
