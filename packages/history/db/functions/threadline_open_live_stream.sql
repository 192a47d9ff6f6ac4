-- Takes one of the owner's `p_cap` places for stream `p_id`, or says false
-- when all are held. Openings of one owner's streams take turns (a lock for
-- the transaction), so two cannot both take the last place; lapsed rows of
-- the owner's are cleared first.
CREATE OR REPLACE FUNCTION threadline_open_live_stream(p_id uuid, p_owner text, p_cap integer, p_lease_seconds integer) RETURNS boolean
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
