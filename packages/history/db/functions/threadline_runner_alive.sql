-- Whether the session that took the advisory lock p_runner (a bigint key:
-- pg_locks shows its high half as classid, its low half as objid, objsubid 1)
-- in this database still holds it. pg_locks, unlike pg_stat_activity, shows
-- every session's locks to every role, and a key, unlike a pid, is never
-- reused by the next backend.
CREATE OR REPLACE FUNCTION threadline_runner_alive(p_runner bigint) RETURNS boolean
  LANGUAGE sql STABLE
  AS $$
    SELECT EXISTS (
      SELECT 1 FROM pg_locks l
       WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
         AND l.classid = (p_runner >> 32)::oid AND l.objid = (p_runner & 4294967295)::oid
         AND l.database = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database()))
  $$;
