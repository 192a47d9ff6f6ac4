// The history a turn runs on: its contract, and the Postgres adapter that keeps it.
export type * from "./contract";
export { PostgresHistoryAdapter } from "./postgres";
