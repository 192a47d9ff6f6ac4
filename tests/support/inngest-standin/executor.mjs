// A minimal Inngest executor: it syncs the app in band, then runs each event's
// functions through the SDK's execution protocol (the shapes come from
// inngest/components/InngestCommHandler.js and helpers/functions.js):
//   POST <fn url>&stepId=step  {event, events, steps, ctx: {run_id, attempt,
//        max_attempts, stack}, version: 2}
//   206 [ops]  StepRun → memoize data; StepError → same request, attempt + 1;
//              StepFailed → memoize the error; StepPlanned → run that step next
//   200 body   the function's return value: the run completed
//   500        retriable function error (x-inngest-no-retry: false) → attempt + 1
//   400        x-inngest-no-retry: true → the run failed
// Without ctx.fn_id the SDK runs in plain async mode and never calls the
// checkpoint API, which the stand-in does not have. Retries are immediate
// (after retryDelayMs), not Inngest's exponential backoff.
import { randomUUID } from "node:crypto";

const MAX_REQUESTS_PER_RUN = 500;

export class Executor {
  #appUrl;
  #appFetch;
  #retryDelayMs;
  #config;
  #limiter = new KeyedLimiter();
  #dispatches = new Map();
  #stopped = false;
  /** Every run, live: status moves queued → running → completed | failed. */
  runs = [];

  constructor({ appUrl, appFetch, retryDelayMs = 20 }) {
    this.#appUrl = appUrl;
    this.#appFetch = appFetch ?? ((request) => fetch(request));
    this.#retryDelayMs = retryDelayMs;
  }

  get configured() {
    return Boolean(this.#appUrl);
  }

  /**
   * The app's function config, fetched the way Inngest's in-band sync does.
   * One sync shared by every waiting event keeps their runs in arrival order.
   */
  sync() {
    this.#config ??= this.#fetchConfig().catch((error) => {
      this.#config = undefined; // the app may not be up yet: try again next event
      throw error;
    });
    return this.#config;
  }

  async #fetchConfig() {
    const response = await this.#appFetch(
      new Request(this.#appUrl, {
        method: "PUT",
        headers: { "content-type": "application/json", "x-inngest-sync-kind": "in_band" },
        body: JSON.stringify({ url: this.#appUrl }),
      }),
    );
    const body = await response.json().catch(() => null);
    if (response.status !== 200 || !Array.isArray(body?.functions)) {
      throw new Error(`in-band sync of ${this.#appUrl} failed: ${response.status} ${JSON.stringify(body)}`);
    }
    return body;
  }

  /**
   * Starts the runs an event triggers, after the sender has had its answer as
   * with Inngest; waitForRuns(event.id) works from the moment this returns.
   */
  dispatch(event) {
    const done = new Promise((resolve) => setImmediate(resolve)).then(async () => {
      const config = await this.sync();
      const matching = config.functions.filter((fn) => fn.triggers?.some((t) => matches(t.event, event.name)));
      return Promise.all(matching.map((fn) => this.#run(fn, event)));
    });
    // Tests see this through waitForRuns; a standalone stand-in has only its log.
    done.catch((error) => console.error(`[inngest-standin] ${event.name} ${event.id} not run: ${error.message}`));
    this.#dispatches.set(event.id, done);
    return done;
  }

  waitForRuns(eventId) {
    return this.#dispatches.get(eventId) ?? Promise.reject(new Error(`no event ${eventId} was received`));
  }

  async idle() {
    for (let seen = -1; seen !== this.#dispatches.size; ) {
      seen = this.#dispatches.size;
      await Promise.allSettled(this.#dispatches.values());
    }
  }

  stop() {
    this.#stopped = true;
  }

  async #run(fn, event) {
    const run = { id: randomUUID(), eventId: event.id, fnId: fn.id, status: "queued", requests: [] };
    this.runs.push(run);
    const held = [];
    try {
      for (const { key, limit } of fn.concurrency ?? []) {
        const slot = `${fn.id}:${concurrencyKey(key, event)}`;
        await this.#limiter.acquire(slot, limit);
        held.push(slot);
      }
      run.status = "running";
      run.startedAt = Date.now();
      Object.assign(run, await this.#execute(fn, event, run));
    } catch (error) {
      Object.assign(run, { status: "failed", error: { message: String(error?.message ?? error) } });
    } finally {
      run.endedAt = Date.now();
      for (const slot of held) this.#limiter.release(slot);
    }
    return run;
  }

  async #execute(fn, event, run) {
    const step = fn.steps?.step;
    if (!step?.runtime?.url) throw new Error(`function ${fn.id} has no step URL in its config`);
    const maxAttempts = (step.retries?.attempts ?? 3) + 1;
    const steps = {};
    const stack = [];
    const planned = [];
    let attempt = 0;
    while (run.requests.length < MAX_REQUESTS_PER_RUN) {
      if (this.#stopped) throw new Error("the stand-in was closed mid-run");
      const stepId = planned[0] ?? "step";
      const url = new URL(step.runtime.url);
      url.searchParams.set("stepId", stepId);
      const body = {
        event,
        events: [event],
        steps,
        ctx: { run_id: run.id, attempt, max_attempts: maxAttempts, stack: { stack: [...stack], current: stack.length } },
        version: 2,
      };
      const exchange = { stepId, attempt, status: 0, ops: [] };
      run.requests.push(exchange);
      let response;
      try {
        response = await this.#appFetch(
          new Request(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
        );
      } catch (error) {
        response = null;
        exchange.error = String(error?.message ?? error);
      }
      exchange.status = response?.status ?? 0;
      const payload = response ? await response.json().catch(() => null) : null;

      if (exchange.status === 200) return { status: "completed", output: payload, attempts: attempt + 1 };
      if (exchange.status === 206 && Array.isArray(payload)) {
        let retry = false;
        for (const op of payload) {
          exchange.ops.push(op.op);
          if (op.op === "StepRun" || op.op === "Step") {
            steps[op.id] = { type: "data", data: op.data ?? null };
            stack.push(op.id);
          } else if (op.op === "StepFailed") {
            steps[op.id] = { type: "error", error: op.error };
            stack.push(op.id);
          } else if (op.op === "StepError") {
            retry = true;
          } else if (op.op === "StepPlanned") {
            if (!planned.includes(op.id)) planned.push(op.id);
          } else if (op.op === "RunComplete") {
            return { status: "completed", output: op.data ?? null, attempts: attempt + 1 };
          } else {
            throw new Error(`the stand-in does not implement the ${op.op} op`);
          }
          if (op.op !== "StepPlanned" && planned[0] === op.id) planned.shift();
        }
        if (!retry) {
          attempt = 0; // Inngest counts attempts per step
          continue;
        }
        // The SDK sends StepFailed instead when no attempt is left; trust it, but never loop forever.
        if (attempt + 1 >= maxAttempts) return { status: "failed", error: lastError(payload), attempts: attempt + 1 };
      } else {
        const noRetry = response?.headers.get("x-inngest-no-retry") === "true" || exchange.status === 400;
        if (noRetry || attempt + 1 >= maxAttempts) {
          return { status: "failed", error: payload ?? { message: exchange.error }, attempts: attempt + 1 };
        }
      }
      attempt += 1;
      await new Promise((resolve) => setTimeout(resolve, this.#retryDelayMs));
    }
    throw new Error(`run exceeded ${MAX_REQUESTS_PER_RUN} requests`);
  }
}

function lastError(ops) {
  return ops.findLast((op) => op.error)?.error ?? null;
}

function matches(trigger, name) {
  if (typeof trigger !== "string") return false;
  return trigger.endsWith("*") ? name.startsWith(trigger.slice(0, -1)) : trigger === name;
}

/** Concurrency keys are CEL in Inngest; the stand-in evaluates plain `event.…` paths only. */
function concurrencyKey(expression, event) {
  if (expression === undefined) return "";
  if (!/^event(\.[A-Za-z_$][\w$]*)+$/.test(expression)) {
    throw new Error(`the stand-in cannot evaluate the concurrency key ${expression}`);
  }
  const value = expression
    .split(".")
    .slice(1)
    .reduce((at, part) => (at == null ? undefined : at[part]), event);
  return JSON.stringify(value ?? null);
}

/** At most `limit` holders per key; the rest wait in arrival order. */
class KeyedLimiter {
  #active = new Map();
  #waiting = new Map();

  acquire(key, limit) {
    const active = this.#active.get(key) ?? 0;
    if (active < limit) {
      this.#active.set(key, active + 1);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const queue = this.#waiting.get(key) ?? [];
      queue.push(resolve);
      this.#waiting.set(key, queue);
    });
  }

  release(key) {
    const next = this.#waiting.get(key)?.shift();
    if (next) return next(); // the slot passes straight to the next in line
    this.#active.set(key, (this.#active.get(key) ?? 1) - 1);
  }
}
