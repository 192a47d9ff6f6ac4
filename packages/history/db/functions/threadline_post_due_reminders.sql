-- The reminders due for a look now, posted by whichever server looks first:
-- each row is taken with SKIP LOCKED, so two servers looking at once post
-- different ones, and each is posted once (threadline_post_reminder). They
-- come in order of their next look, not of their time: one whose thread is
-- busy (a reply being written, or waiting for the user's decision) steps
-- aside, its next look 1 s later, then 2, 4 … up to 30 s, so reminders that
-- cannot be posted never hold the places of those that can. Returns what it
-- posted.
CREATE OR REPLACE FUNCTION threadline_post_due_reminders(p_limit integer)
RETURNS TABLE (id uuid, thread_id uuid, owner text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  r reminders%ROWTYPE;
  v_outcome text;
BEGIN
  FOR r IN SELECT x.* FROM reminders x WHERE x.status = 'scheduled' AND x.next_look_at <= now()
            ORDER BY x.next_look_at, x.id LIMIT p_limit FOR UPDATE SKIP LOCKED LOOP
    SELECT p.outcome INTO v_outcome FROM threadline_post_reminder(r.id) p;
    IF v_outcome = 'posted' THEN
      RETURN QUERY SELECT r.id, r.thread_id, r.owner;
    ELSIF v_outcome = 'busy' THEN
      UPDATE reminders x
         SET busy_looks = x.busy_looks + 1,
             next_look_at = now() + least(interval '30 seconds', interval '1 second' * power(2, least(x.busy_looks, 5)))
       WHERE x.id = r.id;
    END IF;
  END LOOP;
END;
$$;
