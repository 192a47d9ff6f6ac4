-- Up Migration

-- The live streams (GET /api/threads/:id/stream, GET /api/threads/events) an
-- identity holds open, on every app server: each is a row, so a cap on them
-- (MAX_LIVE_STREAMS_PER_IDENTITY) holds across servers. The server holding a
-- stream renews its lease while it is open and deletes the row when it ends;
-- a server that dies leaves rows that lapse with their lease (and are swept
-- by the next opening of the owner's, or by any server's renewal later).
CREATE TABLE live_streams (
  id          uuid PRIMARY KEY,
  owner       text NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX live_streams_owner_idx ON live_streams (owner);
CREATE INDEX live_streams_expires_idx ON live_streams (expires_at);

-- Takes one of the owner's `p_cap` places for stream `p_id`, or says false
-- when all are held. Openings of one owner's streams take turns (a lock for
-- the transaction), so two cannot both take the last place; lapsed rows of
-- the owner's are cleared first.
CREATE FUNCTION threadline_open_live_stream(p_id uuid, p_owner text, p_cap integer, p_lease_seconds integer) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('threadline_live_streams:' || p_owner, 0));
  DELETE FROM live_streams WHERE owner = p_owner AND expires_at < clock_timestamp();
  IF (SELECT count(*) FROM live_streams WHERE owner = p_owner) >= p_cap THEN
    RETURN false;
  END IF;
  INSERT INTO live_streams (id, owner, expires_at) VALUES (p_id, p_owner, clock_timestamp() + make_interval(secs => p_lease_seconds));
  RETURN true;
END $$;

-- Down Migration

DROP FUNCTION threadline_open_live_stream(uuid, text, integer, integer);
DROP TABLE live_streams;
