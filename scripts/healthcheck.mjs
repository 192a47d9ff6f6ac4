// The Docker image's HEALTHCHECK: exits 0 when GET /api/health answers 200
// (the app serves and its database answers), 1 otherwise. Plain Node: the
// slim image has no curl.
const port = process.env.PORT || 3000;
try {
  const response = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(4_000) });
  if (!response.ok) console.error(`health: ${response.status} ${await response.text()}`);
  process.exit(response.ok ? 0 : 1);
} catch (error) {
  console.error(`health: ${error.message}`);
  process.exit(1);
}
