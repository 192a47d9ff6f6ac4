import { z } from "zod";

// The page runs under a Content-Security-Policy without 'unsafe-eval'. Zod
// compiles object parsers with `new Function` where it may, and its probe for
// that (a `Function("")` call) is itself reported as a violation; its parsers
// without it are as correct. In the browser only: the server keeps them.
if (typeof window !== "undefined") z.config({ jitless: true });
