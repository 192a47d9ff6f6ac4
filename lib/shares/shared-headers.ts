// What every response of a share link's public pages (app/s/) carries: no
// search engine lists it or follows it, no address leaks in a Referer, and
// a cache in front of the app may keep it only briefly, because a revoked
// link must stop opening there too (docs/shares.md states the minute).

/** A minute in any cache (a CDN's included): how long a revoked link may still open from one. */
export const SHARED_CACHE_SECONDS = 60;

export const SHARED_CACHE_CONTROL = `public, max-age=${SHARED_CACHE_SECONDS}, s-maxage=${SHARED_CACHE_SECONDS}`;

export const SHARED_HEADERS: Record<string, string> = {
  "X-Robots-Tag": "noindex, nofollow",
  "Referrer-Policy": "no-referrer",
};
