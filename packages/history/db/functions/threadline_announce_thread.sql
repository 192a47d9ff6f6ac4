CREATE OR REPLACE FUNCTION threadline_announce_thread() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('threadline_threads', json_build_object('owner', OLD.owner, 'threadId', OLD.id)::text);
  ELSE
    PERFORM pg_notify('threadline_threads', json_build_object('owner', NEW.owner, 'threadId', NEW.id)::text);
  END IF;
  RETURN NULL;
END $$;

-- A thread's first turn announces it too: within one transaction Postgres
-- sends one notification for identical payloads.
DROP TRIGGER IF EXISTS threads_announce_insert ON threads;
CREATE TRIGGER threads_announce_insert AFTER INSERT ON threads
  FOR EACH ROW EXECUTE FUNCTION threadline_announce_thread();

-- Read: the owner's other tabs and devices drop the thread's "New reply".
DROP TRIGGER IF EXISTS threads_announce_change ON threads;
CREATE TRIGGER threads_announce_change AFTER UPDATE ON threads
  FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.last_read_at IS DISTINCT FROM NEW.last_read_at)
  EXECUTE FUNCTION threadline_announce_thread();

DROP TRIGGER IF EXISTS threads_announce_delete ON threads;
CREATE TRIGGER threads_announce_delete AFTER DELETE ON threads
  FOR EACH ROW EXECUTE FUNCTION threadline_announce_thread();
