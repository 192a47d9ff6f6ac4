import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/settings";
import { clientAddressFrom } from "@/lib/http/client-address.mjs";
import { configuredLimit } from "@/lib/rate-limit";

describe("the client's address", () => {
  it("is the socket's peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(clientAddressFrom("10.0.0.9", "1.2.3.4", 0)).toBe("10.0.0.9");
  });

  it("is the entry the trusted proxies added, never one the client wrote further left", () => {
    // client forged "6.6.6.6"; the one proxy appended the real client 1.2.3.4; the socket is the proxy.
    expect(clientAddressFrom("10.0.0.2", "6.6.6.6, 1.2.3.4", 1)).toBe("1.2.3.4");
    expect(clientAddressFrom("10.0.0.3", "6.6.6.6, 1.2.3.4, 10.0.0.2", 2)).toBe("1.2.3.4");
    expect(clientAddressFrom("10.0.0.2", undefined, 1)).toBe("10.0.0.2"); // fewer entries than hops: the farthest known
  });
});

describe("rate limit settings", () => {
  it("use the default, a whole number from the environment, or 0 for off, and name a bad value", () => {
    expect(configuredLimit("chatPerIdentity", parseEnv({})).points).toBe(20);
    expect(configuredLimit("chatPerIdentity", parseEnv({ RATE_LIMIT_CHAT_PER_MINUTE: "5" })).points).toBe(5);
    expect(configuredLimit("chatPerIdentity", parseEnv({ RATE_LIMIT_CHAT_PER_MINUTE: "0" })).points).toBe(0);
    expect(() => configuredLimit("chatPerIdentity", parseEnv({ RATE_LIMIT_CHAT_PER_MINUTE: "-1" }))).toThrow(/RATE_LIMIT_CHAT_PER_MINUTE must be a whole number/);
    expect(() => configuredLimit("identitiesPerAddress", parseEnv({ RATE_LIMIT_NEW_IDENTITIES_PER_HOUR: "lots" }))).toThrow(/RATE_LIMIT_NEW_IDENTITIES_PER_HOUR/);
  });
});
