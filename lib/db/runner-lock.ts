import "server-only";
import { randomBytes } from "node:crypto";
import type pg from "pg";

// Tells the database this process is alive, so that a turn it runs dies with
// it: its thread takes a new message, or a Retry, as soon as the process is
// gone, rather than once the turn's lease has run out (TURN_LEASE_SECONDS);
// and a turn of a process that is alive on another server is never taken
// over. The process holds a session-level advisory lock under a random key
// of its own, and each turn it runs records that key (turns.runner); the
// database's rule of a running turn (threadline_turn_running,
// db/functions/threadline_turn_running.sql) asks pg_locks whether the key
// is still held. A process killed (kill -9, a crash, out of memory) loses its
// socket, Postgres ends its backend, and the lock goes with it.
//
// One lock for the whole process, on the one long-lived connection it keeps
// already to LISTEN (lib/live/listener.ts), rather than a lock per turn:
// a session lock lives on the connection that took it, so a turn's own lock
// would hold a connection for the whole turn, and a hundred turns at once
// would be a hundred more connections, against the server's max_connections.
// A pool's connections are shared between requests and come and go, so no
// lock may live there. One connection per process costs nothing more than the
// LISTEN did, and recording the key costs the claim no extra round trip.
//
// What it cannot tell, the lease still does: a process alive but cut off from
// the database stops renewing, and its turns die when their leases run out.
// When the connection drops and the process lives on, its turns would look
// dead: the process at once puts them under their lease alone (runner NULL,
// through the pool), and each renewal of a turn's lease records the key held
// then, or none while it holds none; it takes its key back as it connects
// again (a second, about). The connection must reach a Postgres
// session of its own, as LISTEN's must (no transaction pooler in between).
// The embedded database has no such connection (one backend serves every
// connection, and a lock there would outlive the process that took it): its
// turns are told by their lease (docs/architecture.md, Crashes).

/** How long the first turns of a process wait for its connection's first try before claiming without a key. */
const FIRST_TRY_MS = 2_000;

/** A positive 63-bit key, as pg sends a bigint: a decimal string. */
function randomKey(): string {
  return (randomBytes(8).readBigUInt64BE() >> 1n).toString();
}

/** The key of this process's runner session, held on a connection the caller keeps (see `take`). */
export class RunnerLock {
  private key = randomKey();
  private held = false;
  private settled = false;
  private readonly firstTry: Promise<void>;
  private tried!: () => void;

  constructor(
    /** Where this process's turns are put under their lease alone when the lock is lost; none: they wait for the next renewal. */
    private readonly pool?: () => pg.Pool,
  ) {
    this.firstTry = new Promise<void>((resolve) => (this.tried = resolve)).then(() => void (this.settled = true));
  }

  /** Takes the key on `client`, each time the connection is opened again; another key if some other session holds this one. */
  async take(client: pg.Client): Promise<void> {
    try {
      for (let attempt = 0; attempt < 3 && !this.held; attempt++) {
        const { rows } = await client.query<{ got: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS got", [this.key]);
        if (rows[0].got) this.held = true;
        else this.key = randomKey();
      }
    } finally {
      this.tried();
    }
  }

  /** The connection is gone, and the lock with it: this process's running turns keep their threads by their leases. */
  lost(): void {
    const was = this.held ? this.key : undefined;
    this.held = false;
    this.tried();
    if (was === undefined || !this.pool) return;
    this.pool()
      .query("UPDATE turns SET runner = NULL WHERE runner = $1::bigint AND status = 'running'", [was])
      .catch((error: Error) => console.error("[db] could not put this process's turns under their leases:", error.message));
  }

  /** The key while this process's session holds it; null otherwise, and a turn claimed with none is told by its lease alone. */
  async current(): Promise<string | null> {
    if (!this.settled) await Promise.race([this.firstTry, new Promise((resolve) => setTimeout(resolve, FIRST_TRY_MS).unref())]);
    return this.held ? this.key : null;
  }
}
