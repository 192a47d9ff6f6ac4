-- The reminders due now, posted by whichever server looks first: each row is
-- taken with SKIP LOCKED, so two servers looking at once post different
-- ones, and each is posted once (threadline_post_reminder). A busy thread's
-- reminder stays for a later look. Returns what it posted.
CREATE OR REPLACE FUNCTION threadline_post_due_reminders(p_limit integer)
RETURNS TABLE (id uuid, thread_id uuid, owner text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  r reminders%ROWTYPE;
  v_outcome text;
BEGIN
  FOR r IN SELECT x.* FROM reminders x WHERE x.status = 'scheduled' AND x.due_at <= now()
            ORDER BY x.due_at LIMIT p_limit FOR UPDATE SKIP LOCKED LOOP
    SELECT p.outcome INTO v_outcome FROM threadline_post_reminder(r.id) p;
    IF v_outcome = 'posted' THEN
      RETURN QUERY SELECT r.id, r.thread_id, r.owner;
    END IF;
  END LOOP;
END;
$$;
