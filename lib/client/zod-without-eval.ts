import { z } from "zod";

// Zod (the AI SDK's client code loads and uses it; ours does not) compiles
// object parsers with `new Function` and, before the first parse, probes
// whether eval is allowed. The page's Content-Security-Policy forbids eval, so
// the probe alone would report a violation. The interpreted parsers are fast
// enough for a chat's messages; import this before anything parses.
z.config({ jitless: true });
