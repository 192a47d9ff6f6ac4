-- Up Migration
-- Its functions are in db/functions/, one file each (applied after the
-- migrations): threadline_announce_thread, threadline_announce_turn.

-- A running turn's stream, as it is written: what a client that joins late (a
-- reload, a second tab, another device, a request served by another server)
-- reads before following the rest live. Each row is one flush of the turn's
-- chunks (a bounded number per second), in order by id; the writer flushes
-- one at a time, so a turn's rows commit in id order. The last row of a turn
-- is `final`. Rows are swept some minutes after their turn ended: by then
-- the stored reply says the same. The chunks are JSON kept as text: jsonb
-- refuses the NUL a reply may hold (JSON writes it \u0000), and nothing
-- queries inside them.
CREATE TABLE turn_progress (
  id          bigserial PRIMARY KEY,
  turn_id     text NOT NULL,
  chunks      text NOT NULL,
  final       boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX turn_progress_turn_idx ON turn_progress (turn_id, id);
CREATE INDEX turn_progress_created_idx ON turn_progress (created_at);

-- When the owner last saw the thread: a reply newer than this is unseen
-- (POST /api/threads/:id/read). A thread is seen as it is made: its first
-- reply is new, a fork's or an import's copied replies are not, and the
-- threads already there count as read (an upgrade marks no old reply new;
-- now() is taken once, so no row is rewritten).
ALTER TABLE threads ADD COLUMN last_read_at timestamptz DEFAULT now();
