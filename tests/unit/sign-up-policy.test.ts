import { describe, expect, it } from "vitest";
import { allowedEmail, signUpDecision, type SignUpFacts } from "@/lib/accounts/sign-up-policy";

const facts = (over: Partial<SignUpFacts>): SignUpFacts => ({ first: false, invite: "none", policy: "invite", allowedEmails: [], email: "ana@example.org", ...over });

describe("who a new account is", () => {
  it("the first is the admin, whatever the policy", () => {
    for (const policy of ["invite", "allowlist", "open"] as const) expect(signUpDecision(facts({ first: true, policy }))).toEqual({ role: "admin", status: "active" });
  });

  it("an open invite makes a member under every policy; a used one is refused", () => {
    for (const policy of ["invite", "allowlist", "open"] as const) {
      expect(signUpDecision(facts({ invite: "valid", policy }))).toEqual({ role: "member", status: "active" });
      expect(signUpDecision(facts({ invite: "used", policy }))).toHaveProperty("refused");
    }
  });

  it("invite without one waits for approval; open lets anyone in; allowlist only the listed", () => {
    expect(signUpDecision(facts({ policy: "invite" }))).toEqual({ role: "member", status: "pending" });
    expect(signUpDecision(facts({ policy: "open" }))).toEqual({ role: "member", status: "active" });
    expect(signUpDecision(facts({ policy: "allowlist", allowedEmails: ["ana@example.org"] }))).toEqual({ role: "member", status: "active" });
    expect(signUpDecision(facts({ policy: "allowlist", allowedEmails: ["bob@example.org"] }))).toHaveProperty("refused");
  });

  it("through an OIDC provider, the allowlist counts an email only when the provider verified it; the other rules are the same", () => {
    const listed = { policy: "allowlist" as const, allowedEmails: ["ana@example.org"] };
    expect(signUpDecision(facts({ ...listed, oidc: { emailVerified: true } }))).toEqual({ role: "member", status: "active" });
    expect(signUpDecision(facts({ ...listed, oidc: { emailVerified: false } }))).toEqual({
      refused: "Your identity provider has not verified this email, so it cannot be matched to who may sign up. Ask an admin for an invite.",
    });
    expect(signUpDecision(facts({ ...listed, invite: "valid", oidc: { emailVerified: false } }))).toEqual({ role: "member", status: "active" });
    expect(signUpDecision(facts({ policy: "invite", oidc: { emailVerified: true } }))).toEqual({ role: "member", status: "pending" });
    expect(signUpDecision(facts({ first: true, oidc: { emailVerified: false } }))).toEqual({ role: "admin", status: "active" });
  });

  it("an allowlist entry is an email or a whole domain, with or without its @", () => {
    expect(allowedEmail("Ana@Example.org", ["example.org"])).toBe(true);
    expect(allowedEmail("ana@example.org", ["@example.org"])).toBe(true);
    expect(allowedEmail("ana@sub.example.org", ["example.org"])).toBe(false);
    expect(allowedEmail("ana@evilexample.org", ["example.org"])).toBe(false);
    expect(allowedEmail("ana@example.org.evil", ["example.org"])).toBe(false);
  });
});
