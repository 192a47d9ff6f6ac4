-- "Something changed in this owner's list of threads": a turn started or
-- ended, a thread was made (a fork, an import), renamed, read or deleted.
-- Every process LISTENs and tells the owner's open pages, which read the list
-- again; the payload only says whose and which, never what.
CREATE OR REPLACE FUNCTION threadline_announce_turn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('threadline_threads', json_build_object('owner', NEW.owner, 'threadId', NEW.thread_id)::text);
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS turns_announce_start ON turns;
CREATE TRIGGER turns_announce_start AFTER INSERT ON turns
  FOR EACH ROW EXECUTE FUNCTION threadline_announce_turn();

DROP TRIGGER IF EXISTS turns_announce_change ON turns;
CREATE TRIGGER turns_announce_change AFTER UPDATE ON turns
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.turn_id IS DISTINCT FROM NEW.turn_id)
  EXECUTE FUNCTION threadline_announce_turn();
