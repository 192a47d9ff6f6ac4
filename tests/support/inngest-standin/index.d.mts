export interface StandinEvent {
  id: string;
  name: string;
  data: Record<string, unknown>;
  ts: number;
  [key: string]: unknown;
}

/** One POST to the serve endpoint: which step was asked for, the answer's status and op codes. */
export interface StandinExchange {
  stepId: string;
  attempt: number;
  /** Sent as x-request-id; the SDK's checkpoints from this request carry it. */
  requestId: string;
  status: number;
  ops: string[];
  error?: string;
}

/** How the executor runs functions: the SDK's default, or one request per step. */
export type StandinMode = "checkpointed" | "async";

/** One POST /v1/checkpoint/:runId/async the stand-in accepted. */
export interface StandinCheckpoint {
  requestId: string;
  ops: string[];
}

export interface StandinRun {
  id: string;
  eventId: string;
  fnId: string;
  mode: StandinMode;
  /** "waiting": asleep, or waiting for an event (it holds no concurrency slot meanwhile). */
  status: "queued" | "running" | "waiting" | "completed" | "failed" | "cancelled";
  /** Cancelled (DELETE /v1/runs/:runId): it ends between steps. */
  cancelRequested?: boolean;
  output?: unknown;
  error?: unknown;
  /** The attempt number of the final request, plus one. */
  attempts?: number;
  /** Every request to the app's serve endpoint for this run. */
  requests: StandinExchange[];
  /** Checkpoint calls accepted while the run ran (checkpointed mode only). */
  checkpoints: StandinCheckpoint[];
  /** Ids of the steps that reached the stand-in through a checkpoint rather than a response. */
  checkpointedSteps: string[];
  /** Checkpoints refused with 409 (from a request the run no longer waited for). */
  staleCheckpoints: number;
  /** Ids of the memoized steps, in the order they finished. */
  steps: string[];
  /** The Sleep and WaitForEvent ops the run waited on, in order, as the SDK sent them. */
  waits: { op: "Sleep" | "WaitForEvent"; name: string; opts: { timeout?: string; if?: string } | null }[];
  startedAt?: number;
  endedAt?: number;
}

export interface StandinPublished {
  kind: "data";
  channel: string;
  topic: string;
  data: unknown;
  run_id?: string;
  created_at: string;
}

export interface InngestStandin {
  /** Base URL, e.g. "http://127.0.0.1:8288": the app's INNGEST_DEV. */
  url: string;
  port: number;
  mode: StandinMode;
  events: StandinEvent[];
  runs: StandinRun[];
  published: StandinPublished[];
  /** Requests for endpoints the stand-in does not implement. */
  unhandled: string[];
  /** Requests to it by kind ("POST /v1/realtime/publish", "UPGRADE /v1/realtime/connect"…), and the TCP connections they came on. */
  traffic: { requests: Record<string, number>; connections: number };
  /** The app's config from an in-band sync (cached once it succeeds). */
  sync(): Promise<{ app_id: string; functions: Array<Record<string, unknown> & { id: string }> }>;
  /** Settles when every run the event triggered has ended. */
  waitForRuns(eventId: string): Promise<StandinRun[]>;
  /** Settles when no run is queued or running. */
  idle(): Promise<void>;
  /** Open realtime websockets. */
  connections(): Array<{ channel: string; topics: string[] }>;
  close(): Promise<void>;
}

export function startInngestStandin(options?: {
  port?: number;
  /** The app's serve endpoint, e.g. "http://127.0.0.1:3100/api/inngest". */
  appUrl?: string;
  /** Calls the serve endpoint in-process instead of over HTTP. */
  appFetch?: (request: Request) => Promise<Response>;
  /** Wait before a retry (Inngest itself backs off for seconds). */
  retryDelayMs?: number;
  /** "checkpointed" (default, as the SDK and Inngest run) or "async" (checkpointing turned off). */
  mode?: StandinMode;
  /**
   * Awaited after one of a run's steps has finished and before the next starts, in either mode:
   * before each request to the app, and before a checkpoint is answered (the SDK waits for that answer).
   */
  betweenSteps?: () => Promise<void>;
  /** The SDK package.json whose version is checked (default: the installed inngest's). */
  sdkPackageJson?: string;
}): Promise<InngestStandin>;
