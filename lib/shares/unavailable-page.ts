import { BRAND } from "@/lib/brand";

// The page a link that does not open answers with, written by the proxy
// itself: a 410 for one revoked or expired, a 404 for one unknown or forged.
// Next's pages cannot answer 410, and a rewrite to one keeps neither the
// status nor the headers, so this page is plain HTML with nothing to run and
// its one style block under the response's nonce. Both answers are the same
// page but for their words, made from the same one lookup.

const WORDS = {
  gone: {
    heading: "This link is no longer available",
    text: "Its owner revoked it, or it has expired. Ask them for a new link.",
  },
  unknown: {
    heading: "Link not found",
    text: "There is no shared conversation at this address. Check that the link was copied whole.",
  },
} as const;

/** The page for a link that is `gone` or `unknown`; `nonce`: the response's CSP nonce, for its styles. */
export function unavailablePage(state: keyof typeof WORDS, nonce: string): string {
  const { heading, text } = WORDS[state];
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<title>${heading} · ${BRAND.name}</title>
<style nonce="${nonce}">
  body { margin: 0; min-height: 100dvh; display: flex; align-items: center; justify-content: center; padding: 1rem; box-sizing: border-box;
    font-family: ui-sans-serif, system-ui, sans-serif; background: ${BRAND.background}; color: ${BRAND.ink}; text-align: center; }
  main { max-width: 28rem; }
  h1 { font-size: 1.5rem; font-weight: 600; margin: 0 0 0.75rem; }
  p { font-size: 0.875rem; line-height: 1.5; color: #525252; margin: 0; }
  @media (prefers-color-scheme: dark) { body { background: #171717; color: #f5f5f5; } p { color: #d4d4d4; } }
</style>
</head>
<body><main><h1>${heading}</h1><p>${text}</p></main></body>
</html>
`;
}
