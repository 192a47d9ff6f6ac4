-- Schedules a reminder in an owner's thread, under the caps on what is still
-- pending: per thread and per owner. The owner's schedules take turns (an
-- advisory lock on the owner for the transaction), so two approvals at once
-- cannot both pass a count that has room for one. Keyed by the scheduling
-- call: the same call run again finds the one it made ('exists'), whatever
-- the caps say now. Outcomes: 'created', 'exists', 'no_thread' (not the
-- owner's, or gone), 'thread_full', 'owner_full'; nothing is stored unless
-- 'created'.
CREATE OR REPLACE FUNCTION threadline_schedule_reminder(
  p_id uuid, p_owner text, p_thread_id uuid, p_text text, p_due_at timestamptz, p_time_zone text,
  p_per_thread integer, p_per_owner integer)
RETURNS TABLE (outcome text, id uuid, thread_id uuid, text text, due_at timestamptz, time_zone text, status text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  r reminders%ROWTYPE;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('threadline_reminders:' || p_owner, 0));
  SELECT * INTO r FROM reminders x WHERE x.id = p_id AND x.owner = p_owner;
  IF FOUND THEN
    RETURN QUERY SELECT 'exists', r.id, r.thread_id, r.text, r.due_at, r.time_zone, r.status;
    RETURN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM threads t WHERE t.id = p_thread_id AND t.owner = p_owner) THEN
    RETURN QUERY SELECT 'no_thread', NULL::uuid, NULL::uuid, NULL::text, NULL::timestamptz, NULL::text, NULL::text;
    RETURN;
  END IF;
  IF (SELECT count(*) FROM reminders x WHERE x.thread_id = p_thread_id AND x.status = 'scheduled') >= p_per_thread THEN
    RETURN QUERY SELECT 'thread_full', NULL::uuid, NULL::uuid, NULL::text, NULL::timestamptz, NULL::text, NULL::text;
    RETURN;
  END IF;
  IF (SELECT count(*) FROM reminders x WHERE x.owner = p_owner AND x.status = 'scheduled') >= p_per_owner THEN
    RETURN QUERY SELECT 'owner_full', NULL::uuid, NULL::uuid, NULL::text, NULL::timestamptz, NULL::text, NULL::text;
    RETURN;
  END IF;
  INSERT INTO reminders (id, thread_id, owner, text, due_at, time_zone, next_look_at)
  VALUES (p_id, p_thread_id, p_owner, p_text, p_due_at, p_time_zone, p_due_at)
  ON CONFLICT (id) DO NOTHING
  RETURNING * INTO r;
  IF NOT FOUND THEN
    -- The id is another owner's: never say so, nor touch it.
    RETURN QUERY SELECT 'no_thread', NULL::uuid, NULL::uuid, NULL::text, NULL::timestamptz, NULL::text, NULL::text;
    RETURN;
  END IF;
  RETURN QUERY SELECT 'created', r.id, r.thread_id, r.text, r.due_at, r.time_zone, r.status;
END;
$$;
