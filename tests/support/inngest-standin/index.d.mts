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
  status: number;
  ops: string[];
  error?: string;
}

export interface StandinRun {
  id: string;
  eventId: string;
  fnId: string;
  status: "queued" | "running" | "completed" | "failed";
  output?: unknown;
  error?: unknown;
  /** The attempt number of the final request, plus one. */
  attempts?: number;
  requests: StandinExchange[];
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
  events: StandinEvent[];
  runs: StandinRun[];
  published: StandinPublished[];
  /** Requests for endpoints the stand-in does not implement. */
  unhandled: string[];
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
}): Promise<InngestStandin>;
