import { describe, expect, it } from "vitest";
import { newIdentity, signIdentity, verifyIdentity } from "@/lib/auth/identity";

const SECRET = "identity-test-secret-0123456789abcdef";

/** A cookie value as the Web Crypto signer wrote it before: a visitor's existing cookie must still verify. */
async function signedWithWebCrypto(id: string, secret: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const signature = await crypto.subtle.sign("HMAC", key, encoder.encode(id));
  return `${id}.${Buffer.from(signature).toString("base64url")}`;
}

describe("identity cookies", () => {
  it("are signed with the same bytes Web Crypto gave, so cookies issued before still verify", async () => {
    const id = newIdentity();
    const before = await signedWithWebCrypto(id, SECRET);
    expect(await signIdentity(id, SECRET)).toBe(before);
    expect(await verifyIdentity(before, SECRET)).toBe(id);
  });

  it("refuse another secret's signature, another identity's, and a changed character", async () => {
    const id = newIdentity();
    const cookie = await signIdentity(id, SECRET);
    expect(await verifyIdentity(cookie, `${SECRET}-other`)).toBeNull();
    expect(await verifyIdentity(`${newIdentity()}.${cookie.split(".")[1]}`, SECRET)).toBeNull();
    const at = id.length + 1; // the signature's first character
    const changed = cookie[at] === "A" ? "B" : "A";
    expect(await verifyIdentity(`${cookie.slice(0, at)}${changed}${cookie.slice(at + 1)}`, SECRET)).toBeNull();
  });
});
