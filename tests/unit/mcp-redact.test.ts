import { describe, expect, it } from "vitest";
import { connectionOf, redactUrl, redactUrls, scrubberFor } from "@/lib/mcp/redact";

// What the MCP wing may say of a server's URL and headers: every line it
// writes goes through its server's scrubber (lib/mcp/redact.ts).
describe("MCP secrets in lines the wing writes", () => {
  const config = {
    name: "docs",
    url: "https://alice:pa%24%24word@tools.example.com/mcp?key=k3y-value&team=t1",
    headers: { Authorization: "Bearer tok-123456", "X-Api-Key": "xkey-789" },
    autoApprove: [],
    transport: "http" as const,
  };

  it("masks a URL's userinfo and query values, keeping where it points", () => {
    expect(redactUrl(config.url)).toBe("https://***@tools.example.com/mcp?key=***&team=***");
    expect(redactUrl("http://h:1/p")).toBe("http://h:1/p");
    expect(redactUrls('fetch "https://u:p@x.test/a?b=c" failed')).toBe('fetch "https://***@x.test/a?b=***" failed');
  });

  it("masks the secrets wherever a message quotes them, the URL's parts, the headers' values and the Basic credentials made of them", () => {
    const scrub = scrubberFor(config);
    const basic = connectionOf(config).headers.Authorization.split(" ")[1];
    const leaked = `Cannot POST /mcp?key=k3y-value (authorization: Bearer tok-123456, ${basic}); password pa$$word, x-api-key xkey-789`;
    const said = scrub(leaked);
    for (const secret of ["k3y-value", "tok-123456", basic, "pa$$word", "xkey-789"]) expect(said).not.toContain(secret);
    expect(said).toBe("Cannot POST /mcp?key=*** (authorization: ***, ***); password ***, x-api-key ***");
    // A token quoted without its scheme is masked too.
    expect(scrub("token tok-123456 refused")).toBe("token *** refused");
  });

  it("sends a URL's userinfo as Basic authorization, unless the headers name one", () => {
    const plain = { ...config, headers: {} };
    const { url, headers } = connectionOf(plain);
    expect(url.href).toBe("https://tools.example.com/mcp?key=k3y-value&team=t1");
    expect(headers).toEqual({ Authorization: `Basic ${Buffer.from("alice:pa$$word").toString("base64")}` });
    expect(connectionOf(config).headers.Authorization).toBe("Bearer tok-123456");
  });
});
