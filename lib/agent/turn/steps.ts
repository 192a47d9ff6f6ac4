/** What a runtime must know about a step besides its id. */
export interface StepOptions {
  /** The user's Stop may abort this step's work (a model call, a tool): the runtime keeps its handle while it runs. */
  stoppable?: boolean;
}

/**
 * Wraps a side effect so a durable runtime can memoize it under a stable id
 * (Inngest's step.run): a step that finished is never run again, its value is
 * replayed. The inline runtime just runs it.
 */
export type StepRunner = <T>(id: string, work: () => Promise<T>, options?: StepOptions) => Promise<T>;

export const runNow: StepRunner = (_id, work) => work();
