// A minimal Inngest executor: it syncs the app in band, then runs each event's
// functions through the SDK's execution protocol (the shapes come from
// inngest/components/InngestCommHandler.js, components/execution/engine.js and
// api/api.js of the release sdk-version.mjs pins):
//   POST <fn url>&stepId=step  {event, events, steps, ctx: {run_id, attempt,
//        max_attempts, stack, fn_id, qi_id}, version: 2}, x-request-id header
//   206 [ops]  StepRun → memoize data; StepError → same request, attempt + 1;
//              StepFailed → memoize the error; StepPlanned → run that step next;
//              RunComplete → the run completed with its data
//   200 body   the function's return value: the run completed
//   500        retriable function error (x-inngest-no-retry: false) → attempt + 1
//   400        x-inngest-no-retry: true → the run failed
// Checkpointed mode (the SDK's default, and Inngest's when it sends ctx.fn_id):
// the SDK runs every step in the same request, eagerly, and reports each
// finished step to POST /v1/checkpoint/<runId>/async (checkpoint() below)
// before it goes on; the request ends with a 206 [..., RunComplete]. A step
// that throws ends the request with StepError after the finished steps were
// checkpointed, so the retry replays them from memo and runs only the failed
// step. When maxRuntime is reached the SDK checkpoints what it has and answers
// with the next step planned; that step runs in a request of its own (stepId
// set, which the SDK runs without checkpointing), then the run goes on
// checkpointed. In "async" mode (no ctx.fn_id) the SDK runs one step per request.
// Retries are immediate (after retryDelayMs), not Inngest's exponential backoff.
// Waits (the SDK's async ops, reported in a 206 like the others):
//   Sleep {name: "<duration>" | "<ISO time>"} → after that long, or at that
//     time, the step's data is null and the run goes on;
//   WaitForEvent {name: "<event>", opts: {timeout: "<duration>", if?}} → the
//     first event of that name sent after the wait began, and matching `if`
//     (terms joined by "&&", each "event.<path> == async.<path>", as the
//     SDK writes a `match`, or "async.<path> == \"<text>\"", the only forms
//     evaluated here), is the step's data; past the timeout it is null.
// A run that fails for good sends inngest/function.failed ({function_id,
// run_id, error, event}), which runs the function's onFailure handler (its
// trigger's `if`, "event.data.function_id == '<id>'", is evaluated here).
// A waiting run holds no concurrency slot, as with Inngest: it takes its
// slots again before its next request.
// cancel(runId) (DELETE /v1/runs/:runId, as Inngest's REST API) stops a run
// between steps, as Inngest does: a request in flight runs to its end, but
// its checkpoints are refused (409, the SDK stops there), a wait, a sleep or
// a retry's delay ends at once, and no request follows. The run is then
// "cancelled" and inngest/function.cancelled ({function_id, run_id, error:
// {name, message: "function cancelled"}, event}) is sent.
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
  #mode;
  #fnIds = new Map();
  /** Memoized steps and the request the SDK may checkpoint from, by run id, while the run is running. */
  #live = new Map();
  /** Every run, live: status moves queued → running → completed | failed. */
  runs = [];
  /** Runs waiting for an event: what they wait for, and how to wake them. */
  #waiting = new Set();

  #betweenSteps;
  /** Wakes a cancelled run's wait, sleep or retry delay, by run id. */
  #cancelWakers = new Map();

  constructor({ appUrl, appFetch, retryDelayMs = 20, mode = "checkpointed", betweenSteps }) {
    this.#betweenSteps = betweenSteps;
    if (!["checkpointed", "async"].includes(mode)) throw new Error(`the Inngest stand-in has no mode ${mode}: use "checkpointed" or "async"`);
    this.#appUrl = appUrl;
    this.#appFetch = appFetch ?? ((request) => fetch(request));
    this.#retryDelayMs = retryDelayMs;
    this.#mode = mode;
  }

  get mode() {
    return this.#mode;
  }

  /**
   * POST /v1/checkpoint/:runId/async, what the SDK's checkpointStepsAsync
   * sends: {run_id, fn_id, qi_id, request_id, generation_id, steps: [ops], ts}.
   * Finished steps are memoized as if the request had returned them. A request
   * the run no longer waits for (it ended, or was given up and dispatched
   * again) gets 409: the SDK then stops executing (StaleDispatchError).
   */
  async checkpoint(runId, body) {
    // The SDK waits for this answer before it starts the next step.
    await this.#betweenSteps?.();
    const live = this.#live.get(runId);
    const run = this.runs.find((r) => r.id === runId);
    if (!run) return { status: 404, body: { error: `no run ${runId}` } };
    if (!live || body?.request_id !== live.requestId || run.cancelRequested) {
      run.staleCheckpoints += 1;
      return { status: 409, body: { error: `stale dispatch: request ${body?.request_id} is not run ${runId}'s current one` } };
    }
    if (!Array.isArray(body.steps)) return { status: 400, body: { error: "steps must be an array" } };
    run.checkpoints.push({ requestId: body.request_id, ops: body.steps.map((op) => op.op) });
    for (const op of body.steps) {
      if (op.op === "StepRun" || op.op === "Step" || op.op === "StepFailed") run.checkpointedSteps.push(op.id);
      live.apply(op);
    }
    return { status: 200, body: {} };
  }

  /** Cancels a run that has not ended (see the header); 404 for an unknown run, 409 for one that has ended. */
  cancel(runId) {
    const run = this.runs.find((r) => r.id === runId);
    if (!run) return { status: 404, body: { error: `no run ${runId}` } };
    if (!["queued", "running", "waiting"].includes(run.status)) return { status: 409, body: { error: `run ${runId} has ended (${run.status})` } };
    run.cancelRequested = true;
    this.#cancelWakers.get(runId)?.();
    return { status: 200, body: { data: { run_id: runId, status: "Cancelled" } } };
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
    // A run waiting for this event takes it (Inngest matches events sent after the wait began).
    for (const waiter of [...this.#waiting]) {
      if (waiter.name === event.name && waiter.matches(event)) waiter.wake(event);
    }
    const done = new Promise((resolve) => setImmediate(resolve)).then(async () => {
      const config = await this.sync();
      const matching = config.functions.filter((fn) => fn.triggers?.some((t) => matches(t.event, event.name) && triggerMatcher(t.expression)(event)));
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
    const run = {
      id: randomUUID(),
      eventId: event.id,
      fnId: fn.id,
      mode: this.#mode,
      status: "queued",
      requests: [],
      checkpoints: [],
      checkpointedSteps: [],
      staleCheckpoints: 0,
      steps: [],
      waits: [],
    };
    this.runs.push(run);
    const slots = (fn.concurrency ?? []).map(({ key, limit }) => ({ slot: `${fn.id}:${concurrencyKey(key, event)}`, limit }));
    let holding = false;
    const take = async () => {
      for (const { slot, limit } of slots) await this.#limiter.acquire(slot, limit);
      holding = true;
    };
    const give = () => {
      if (holding) for (const { slot } of slots) this.#limiter.release(slot);
      holding = false;
    };
    const cancelled = new Promise((resolve) => this.#cancelWakers.set(run.id, resolve)).then(() => CANCELLED);
    // While the run waits it holds none of its slots; a cancel ends the wait.
    const paused = async (wait) => {
      give();
      run.status = "waiting";
      try {
        return await Promise.race([wait, cancelled]);
      } finally {
        await take();
        run.status = "running";
      }
    };
    try {
      await take();
      run.status = "running";
      run.startedAt = Date.now();
      if (run.cancelRequested) throw new RunCancelled();
      Object.assign(run, await this.#execute(fn, event, run, paused, cancelled));
    } catch (error) {
      if (error instanceof RunCancelled) run.status = "cancelled";
      else Object.assign(run, { status: "failed", error: { message: String(error?.message ?? error) } });
    } finally {
      this.#live.delete(run.id);
      this.#cancelWakers.delete(run.id);
      run.endedAt = Date.now();
      give();
    }
    // As Inngest does once a run has failed for good: the function's failure handler (onFailure) runs on it.
    if (run.status === "failed" && !this.#stopped) {
      this.dispatch({
        name: FUNCTION_FAILED,
        id: randomUUID(),
        ts: Date.now(),
        data: { function_id: fn.id, run_id: run.id, error: failureError(run.error), event },
      });
    }
    if (run.status === "cancelled" && !this.#stopped) {
      this.dispatch({
        name: FUNCTION_CANCELLED,
        id: randomUUID(),
        ts: Date.now(),
        data: { function_id: fn.id, run_id: run.id, error: { name: "Error", message: "function cancelled" }, event },
      });
    }
    return run;
  }

  async #execute(fn, event, run, paused, cancelled) {
    const step = fn.steps?.step;
    if (!step?.runtime?.url) throw new Error(`function ${fn.id} has no step URL in its config`);
    const maxAttempts = (step.retries?.attempts ?? 3) + 1;
    const steps = {};
    const stack = [];
    const planned = [];
    let completed;
    // One place memoizes an op, whether a response or a checkpoint brought it.
    const apply = (op) => {
      if (op.op === "StepRun" || op.op === "Step") {
        if (!(op.id in steps)) stack.push(op.id);
        steps[op.id] = { type: "data", data: op.data ?? null };
      } else if (op.op === "StepFailed") {
        if (!(op.id in steps)) stack.push(op.id);
        steps[op.id] = { type: "error", error: op.error };
      } else if (op.op === "RunComplete") {
        completed = { output: op.data ?? null };
        return;
      } else {
        return;
      }
      run.steps = [...stack];
      if (planned[0] === op.id) planned.shift();
    };
    const live = { requestId: undefined, apply };
    this.#live.set(run.id, live);
    let attempt = 0;
    let generation = 0;
    while (run.requests.length < MAX_REQUESTS_PER_RUN) {
      if (this.#stopped) throw new Error("the stand-in was closed mid-run");
      // Between steps: a request in flight when the cancel came ran to its end, and none follows.
      if (run.cancelRequested) throw new RunCancelled();
      const stepId = planned[0] ?? "step";
      const url = new URL(step.runtime.url);
      url.searchParams.set("stepId", stepId);
      const requestId = randomUUID();
      live.requestId = requestId;
      const checkpointed = this.#mode === "checkpointed";
      const body = {
        event,
        events: [event],
        steps,
        ctx: {
          run_id: run.id,
          attempt,
          max_attempts: maxAttempts,
          stack: { stack: [...stack], current: stack.length },
          ...(checkpointed ? { fn_id: this.#internalFnId(fn.id), qi_id: randomUUID(), disable_immediate_execution: false } : {}),
        },
        version: 2,
      };
      const exchange = { stepId, attempt, requestId, status: 0, ops: [] };
      run.requests.push(exchange);
      let response;
      try {
        await this.#betweenSteps?.();
        response = await this.#appFetch(
          new Request(url, {
            method: "POST",
            headers: { "content-type": "application/json", "x-request-id": requestId, "x-inngest-generation-id": String(generation++) },
            body: JSON.stringify(body),
          }),
        );
      } catch (error) {
        response = null;
        exchange.error = String(error?.message ?? error);
      }
      exchange.status = response?.status ?? 0;
      const payload = response ? await response.json().catch(() => null) : null;
      live.requestId = undefined; // a checkpoint from this request from now on is stale

      if (exchange.status === 200) return { status: "completed", output: payload, attempts: attempt + 1 };
      if (exchange.status === 206 && Array.isArray(payload)) {
        let retry = false;
        for (const op of payload) {
          exchange.ops.push(op.op);
          if (op.op === "StepError") retry = true;
          else if (op.op === "StepPlanned") {
            if (!planned.includes(op.id)) planned.push(op.id);
          } else if (op.op === "Sleep" || op.op === "WaitForEvent") {
            run.waits.push({ op: op.op, name: op.name, opts: op.opts ?? null });
            const data = await paused(op.op === "Sleep" ? this.#sleep(op.name) : this.#waitForEvent(op, event));
            if (data === CANCELLED) throw new RunCancelled();
            apply({ op: "Step", id: op.id, data });
          } else if (!KNOWN_OPS.has(op.op)) throw new Error(`the stand-in does not implement the ${op.op} op`);
          else apply(op);
        }
        if (completed) return { status: "completed", output: completed.output, attempts: attempt + 1 };
        if (!retry) {
          attempt = 0; // Inngest counts attempts per step
          continue;
        }
        // The SDK sends StepFailed instead when no attempt is left; trust it, but never loop forever.
        if (attempt + 1 >= maxAttempts) return { status: "failed", error: lastError(payload), attempts: attempt + 1 };
      } else {
        // A run the SDK completed through a checkpoint needs no answer.
        if (completed) return { status: "completed", output: completed.output, attempts: attempt + 1 };
        // The SDK stopped at a refused checkpoint (StaleDispatchError, no retry): the cancel, not a failure.
        if (run.cancelRequested) throw new RunCancelled();
        const noRetry = response?.headers.get("x-inngest-no-retry") === "true" || exchange.status === 400;
        if (noRetry || attempt + 1 >= maxAttempts) {
          return { status: "failed", error: payload ?? { message: exchange.error }, attempts: attempt + 1 };
        }
      }
      attempt += 1;
      await Promise.race([this.#timer(this.#retryDelayMs), cancelled]);
    }
    throw new Error(`run exceeded ${MAX_REQUESTS_PER_RUN} requests`);
  }

  /** Resolves null once the Sleep op's time has come: a duration ("2s", "1h30m") from now, or an ISO time. */
  #sleep(name) {
    const at = /^\d{4}-\d\d-\d\dT/.test(name) ? Date.parse(name) : Date.now() + durationMs(name);
    return this.#timer(Math.max(0, at - Date.now())).then(() => null);
  }

  /** Resolves with the first matching event sent from now on, or null at the op's timeout. */
  #waitForEvent(op, trigger) {
    const matches = eventMatcher(op.opts?.if, trigger);
    return new Promise((resolve) => {
      const waiter = {
        name: op.name,
        matches,
        wake: (event) => {
          this.#waiting.delete(waiter);
          clearTimeout(timer);
          resolve(event);
        },
      };
      const timer = setTimeout(() => {
        this.#waiting.delete(waiter);
        resolve(null);
      }, durationMs(op.opts?.timeout ?? "0s"));
      this.#waiting.add(waiter);
    });
  }

  #timer(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  /** Inngest's internal id of a function (a UUID, unlike the slug in the config): the SDK's ctx.fn_id. */
  #internalFnId(slug) {
    if (!this.#fnIds.has(slug)) this.#fnIds.set(slug, randomUUID());
    return this.#fnIds.get(slug);
  }
}

const FUNCTION_FAILED = "inngest/function.failed";
const FUNCTION_CANCELLED = "inngest/function.cancelled";

/** What a cancelled run's wait resolves with. */
const CANCELLED = Symbol("cancelled");

/** The run was cancelled: it ends between steps. */
class RunCancelled extends Error {
  constructor() {
    super("function cancelled");
  }
}

/** A failed run's error as Inngest's failure event carries it: the SDK's serialized error, or one made of what the stand-in saw. */
function failureError(error) {
  const found = error?.error && typeof error.error === "object" ? error.error : error;
  return { name: found?.name ?? "Error", message: String(found?.message ?? "the run failed"), ...(found?.stack ? { stack: found.stack } : {}) };
}

const KNOWN_OPS = new Set(["StepRun", "Step", "StepFailed", "StepError", "StepPlanned", "RunComplete"]);

function lastError(ops) {
  return ops.findLast((op) => op.error)?.error ?? null;
}

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** A duration as the SDK writes one ("500ms", "2s", "1h30m", "1d"), in ms. */
function durationMs(text) {
  const parts = [...String(text).matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text) throw new Error(`the stand-in cannot read the duration ${text}`);
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * UNIT_MS[unit], 0);
}

/**
 * A waitForEvent's `if`, against the event that started the run (`event`) and
 * an incoming one (`async`): "event.<path> == async.<path>", as the SDK writes
 * a `match`, or "async.<path> == \"<text>\"", joined by "&&"; no expression
 * matches every event.
 */
function eventMatcher(expression, trigger) {
  if (expression === undefined) return () => true;
  const terms = expression.split("&&").map((term) => {
    const found = /^\s*event((?:\.[A-Za-z_$][\w$]*)+)\s*==\s*async((?:\.[A-Za-z_$][\w$]*)+)\s*$/.exec(term);
    if (found) return { ours: path(trigger, found[1]), theirs: found[2] };
    // A string the function wrote into the condition itself (CEL's double-quoted literal, no escapes).
    const literal = /^\s*async((?:\.[A-Za-z_$][\w$]*)+)\s*==\s*"([^"\\]*)"\s*$/.exec(term);
    if (literal) return { ours: literal[2], theirs: literal[1] };
    throw new Error(`the stand-in cannot evaluate the wait's condition ${expression}`);
  });
  return (incoming) => terms.every(({ ours, theirs }) => ours !== undefined && JSON.stringify(path(incoming, theirs)) === JSON.stringify(ours));
}

const path = (value, dotted) =>
  dotted
    .split(".")
    .slice(1)
    .reduce((at, key) => (at == null ? undefined : at[key]), value);

/**
 * A trigger's `if` (CEL in Inngest): "event.<path> == '<text>'" (or a
 * double-quoted text), joined by "&&", the form the SDK writes for an
 * onFailure handler; no expression matches every event.
 */
function triggerMatcher(expression) {
  if (!expression) return () => true;
  const terms = expression.split("&&").map((term) => {
    const found = /^\s*event((?:\.[A-Za-z_$][\w$]*)+)\s*==\s*(?:'([^'\\]*)'|"([^"\\]*)")\s*$/.exec(term);
    if (!found) throw new Error(`the stand-in cannot evaluate the trigger's condition ${expression}`);
    return { at: found[1], text: found[2] ?? found[3] };
  });
  return (event) => terms.every(({ at, text }) => path(event, at) === text);
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
