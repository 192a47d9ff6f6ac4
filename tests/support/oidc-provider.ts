import { generateKeyPairSync, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Configuration } from "oidc-provider";

// A real OpenID Connect provider on loopback for the tests (panva's
// oidc-provider, a certified implementation), with one confidential client
// and its own development sign-in pages: any login name signs in, as the
// person `people` lists under it. Plain Node (no test runner's imports), so
// an end-to-end spec can start it as an integration test does.

/** Who a login name signs in as. */
export interface TestPerson {
  email: string;
  /** What the provider says of the email (email_verified); true unless said otherwise. */
  emailVerified?: boolean;
  name?: string;
  /** A groups claim (released with the profile scope), as a provider sends one: an array of names or one string of them. */
  groups?: string[] | string;
}

export interface TestOidcOptions {
  /** The callback addresses the client may be sent back to (APP_URL/api/auth/callback/<id>). */
  redirectUris: string[];
  /** Login name → person (read at each sign-in: a test may change a person between two); a login not listed signs in as the email it is. */
  people?: Record<string, TestPerson>;
  /** A path after the address the provider signs its tokens as issuer ("/other": an issuer other than the address it is reached at). */
  issuerPath?: string;
  /**
   * Its discovery document names the address it is reached at, not the
   * issuer its tokens name (a provider whose ID tokens name another issuer
   * than it claims): always, or in its first answer only (a provider whose
   * document changes between two readings).
   */
  advertiseAddress?: boolean | "first";
  /** Claims in the ID token itself (true), or only at the userinfo endpoint (false, the provider's default for the code flow). */
  claimsInIdToken?: boolean;
  /** The port to listen on; 0 (default): one the system picks. */
  port?: number;
  /** The client's secret (for an app configured before the provider starts); default: a random one. */
  clientSecret?: string;
}

export interface TestOidc {
  /** Where it is reached: the issuer to configure when it tells the truth. */
  url: string;
  /** The issuer its tokens name. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

export async function startTestOidc(options: TestOidcOptions): Promise<TestOidc> {
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${url}${options.issuerPath ?? ""}`;
  const clientId = "threadline";
  const clientSecret = options.clientSecret ?? randomBytes(24).toString("base64url");
  const people = options.people ?? {};
  const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });

  const configuration: Configuration = {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [{ ...key, kid: "test", alg: "RS256", use: "sig" } as never] },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "groups"] },
    conformIdTokenClaims: !(options.claimsInIdToken ?? false),
    // Every authorization request must carry a PKCE challenge: a client that sent none is refused.
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx, login) {
      const person = people[login] ?? { email: login };
      return {
        accountId: login,
        claims: async () => ({
          sub: login,
          email: person.email,
          email_verified: person.emailVerified ?? true,
          name: person.name ?? login,
          ...(person.groups === undefined ? {} : { groups: person.groups }),
        }),
      };
    },
  };
  const provider = new Provider(issuer, configuration);
  if (options.advertiseAddress) {
    let answers = 0;
    provider.use(async (ctx, next) => {
      await next();
      if (ctx.path !== "/.well-known/openid-configuration" || !ctx.body || typeof ctx.body !== "object") return;
      if (options.advertiseAddress === true || answers++ === 0) ctx.body = { ...ctx.body, issuer: url };
    });
  }
  server.on("request", provider.callback());
  return {
    url,
    issuer,
    clientId,
    clientSecret,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A browser's cookies, by name, for one site (enough for one sign-in at the test provider). */
class CookieJar {
  private readonly cookies = new Map<string, string>();

  keep(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0$/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split("=")[1]) < Date.now()));
      if (!value || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

/**
 * Signs in at the test provider as `login`, as a browser would from the
 * authorization address the app sent it to: follows its redirects, fills
 * in its sign-in and consent pages, and gives the address it sends the
 * browser back to (the app's callback, with the code and state).
 */
export async function signInAtProvider(authorizationUrl: string, login: string): Promise<URL> {
  const provider = new URL(authorizationUrl).origin;
  const jar = new CookieJar();
  let next = new URL(authorizationUrl);
  let body: URLSearchParams | undefined;
  for (let step = 0; step < 20; step++) {
    const response = await fetch(next, {
      method: body ? "POST" : "GET",
      body,
      headers: { cookie: jar.header(), ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      redirect: "manual",
    });
    jar.keep(response);
    body = undefined;
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      next = new URL(location, next);
      if (next.origin !== provider) return next;
      continue;
    }
    const page = await response.text();
    const prompt = /name="prompt" value="(login|consent)"/.exec(page)?.[1];
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    if (response.status !== 200 || !prompt || !action) throw new Error(`the test provider answered ${response.status} at ${next.pathname}: ${page.slice(0, 500)}`);
    next = new URL(action.replace(/&amp;/g, "&"), next);
    body = new URLSearchParams(prompt === "login" ? { prompt, login, password: "any" } : { prompt });
  }
  throw new Error("the test provider never sent the browser back");
}
