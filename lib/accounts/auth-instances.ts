import "server-only";
import type { Auth } from "./better-auth";
import { discover, type DiscoveredProvider } from "./oidc";
import type { OidcProvider } from "./oidc-settings";

// The process's Better Auth, one for requests over TLS and one for the rest
// (their cookies differ), each made with the OIDC providers whose discovery
// answered. One that did not is left out and asked again after a minute,
// while the Better Auth without it serves on.

/** How soon an OIDC provider that did not answer its discovery is asked again. */
const OIDC_RETRY_MS = 60_000;

/** A Better Auth made, and the OIDC providers it lacks (their discovery failed): it is made again once OIDC_RETRY_MS passed. */
interface BuiltAuth {
  auth: Promise<Auth>;
  missing: number;
  retryAt: number;
  /** The one being made in its place, while it is. */
  next?: Promise<Auth>;
}

export type MakeAuth = (https: boolean, oidc: DiscoveredProvider[]) => Promise<Auth>;

export class AuthInstances {
  private readonly built = new Map<boolean, BuiltAuth>();

  constructor(
    private readonly providers: readonly OidcProvider[],
    private readonly make: MakeAuth,
  ) {}

  get(https: boolean): Promise<Auth> {
    const built = this.built.get(https);
    if (!built) {
      const first = this.build(https);
      this.built.set(https, first);
      first.auth.catch(() => this.built.delete(https)); // a database that was down must not poison the process
      return first.auth;
    }
    if (built.missing > 0 && !built.next && Date.now() >= built.retryAt) {
      // A provider was away: asked again, while the Better Auth without it serves on until the new one is ready.
      const next = this.build(https);
      built.next = next.auth;
      next.auth.then(
        () => this.built.set(https, next),
        () => Object.assign(built, { next: undefined, retryAt: Date.now() + OIDC_RETRY_MS }),
      );
    }
    return built.auth;
  }

  /**
   * Better Auth with the OIDC provider `id` ready, or null while it is away:
   * the start of a sign-in through it waits for a Better Auth being made
   * anew (get() started it), rather than answer from the one without it.
   */
  async withProvider(https: boolean, id: string): Promise<Auth | null> {
    const auth = await this.get(https);
    if (await this.offers(auth, id)) return auth;
    const fresh = await this.built.get(https)?.next?.catch(() => null);
    return fresh && (await this.offers(fresh, id)) ? fresh : null;
  }

  /** Whether the OIDC provider `id` answered its discovery and is offered by `auth`. */
  private async offers(auth: Auth, id: string): Promise<boolean> {
    return (await auth.$context).socialProviders.some((provider) => provider.id === id);
  }

  private build(https: boolean): BuiltAuth {
    const built: BuiltAuth = { auth: Promise.resolve(null as unknown as Auth), missing: 0, retryAt: 0 };
    built.auth = (async () => {
      const auth = await this.make(https, await this.discoverAll());
      // Better Auth asks each provider's discovery again as it starts; one that failed there is left out too.
      const offered = await Promise.all(this.providers.map((provider) => this.offers(auth, provider.id)));
      built.missing = offered.filter((present) => !present).length;
      built.retryAt = Date.now() + OIDC_RETRY_MS;
      return auth;
    })();
    return built;
  }

  /** Each OIDC provider whose discovery answers, as configured; the others are logged and left out for now. */
  private async discoverAll(): Promise<DiscoveredProvider[]> {
    const found = await Promise.all(
      this.providers.map((provider) =>
        discover(provider).then(
          (discovery) => ({ provider, discovery }),
          (error: Error) => {
            console.error(`[auth] The OIDC provider "${provider.id}" (${provider.issuer}) is left out for now: ${error.message}. It is asked again within ${OIDC_RETRY_MS / 1000} seconds.`);
            return null;
          },
        ),
      ),
    );
    return found.filter((entry) => entry !== null);
  }
}
