-- Up Migration

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

-- "Something changed in this owner's list of threads": a turn started or
-- ended, a thread was made (a fork, an import), renamed, read or deleted.
-- Every process LISTENs and tells the owner's open pages, which read the list
-- again; the payload only says whose and which, never what.
CREATE FUNCTION threadline_announce_turn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('threadline_threads', json_build_object('owner', NEW.owner, 'threadId', NEW.thread_id)::text);
  RETURN NULL;
END $$;

CREATE FUNCTION threadline_announce_thread() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('threadline_threads', json_build_object('owner', OLD.owner, 'threadId', OLD.id)::text);
  ELSE
    PERFORM pg_notify('threadline_threads', json_build_object('owner', NEW.owner, 'threadId', NEW.id)::text);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER turns_announce_start AFTER INSERT ON turns
  FOR EACH ROW EXECUTE FUNCTION threadline_announce_turn();
CREATE TRIGGER turns_announce_change AFTER UPDATE ON turns
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.turn_id IS DISTINCT FROM NEW.turn_id)
  EXECUTE FUNCTION threadline_announce_turn();
-- A thread's first turn announces it too: within one transaction Postgres
-- sends one notification for identical payloads.
CREATE TRIGGER threads_announce_insert AFTER INSERT ON threads
  FOR EACH ROW EXECUTE FUNCTION threadline_announce_thread();
-- Read: the owner's other tabs and devices drop the thread's "New reply".
CREATE TRIGGER threads_announce_change AFTER UPDATE ON threads
  FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.last_read_at IS DISTINCT FROM NEW.last_read_at)
  EXECUTE FUNCTION threadline_announce_thread();
CREATE TRIGGER threads_announce_delete AFTER DELETE ON threads
  FOR EACH ROW EXECUTE FUNCTION threadline_announce_thread();
