/** The variables that point the app at the mock model server (scripts/mock-model-server.mjs) at `url`: a test app's, or a server process's a test starts. */
export function mockModelEnv(url: string): Record<string, string> {
  return { MODEL_PROVIDER: "openai-compatible", OPENAI_COMPATIBLE_BASE_URL: url, MODEL: "mock-model" };
}
