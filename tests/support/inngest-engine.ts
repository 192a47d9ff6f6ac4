import type { InngestTestEngine } from "@inngest/test";

// Retries and replays as the Inngest executor runs them, on top of
// @inngest/test's engine (which always runs one attempt).

export type MockedSteps = NonNullable<InngestTestEngine.Options["steps"]>;

/** The steps that finished in a run, as mocks: what Inngest replays from memory. */
export async function memoized(state: Record<string, Promise<unknown>>): Promise<MockedSteps> {
  const steps: MockedSteps = [];
  for (const [id, value] of Object.entries(state)) {
    const settled = await value.then((data) => ({ ok: true as const, data }), () => ({ ok: false as const }));
    if (settled.ok) steps.push({ id, idIsHashed: true, handler: () => settled.data });
  }
  return steps;
}

/**
 * What the Inngest executor does when a step fails with retries left: run the
 * function again with the next attempt number and every finished step memoized.
 */
export async function executeWithRetries(at: (attempt: number) => InngestTestEngine, maxAttempts = 4, steps: MockedSteps = []) {
  for (let attempt = 0; ; attempt++) {
    const out = await at(attempt).execute({ steps });
    const final = !out.error || (out.error as { name?: string }).name === "NonRetriableError";
    if (final || attempt + 1 >= maxAttempts) return { ...out, attempts: attempt + 1 };
    steps = await memoized(out.state as Record<string, Promise<unknown>>);
  }
}

