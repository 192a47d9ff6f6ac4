-- The user's decision on a tool call that asked first. The first decision
-- stands: a second one (two devices at once, a double click) finds it made
-- and is told how. A decision that comes after the approval's time is up
-- records it expired instead. No row: no such approval in the owner's thread.
-- Decisions on one thread take turns (its row lock), so of two decisions at
-- once on the two calls of a reply, the second counts the first: exactly one
-- is told none is pending, and the reply goes on once.
DROP FUNCTION IF EXISTS threadline_decide_approval(uuid, text, boolean, text, interval);
DROP FUNCTION IF EXISTS threadline_decide_approval(uuid, uuid, text, boolean, text, interval);
DROP FUNCTION IF EXISTS threadline_decide_approval(uuid, uuid, text, boolean, text, interval, text);
CREATE OR REPLACE FUNCTION threadline_decide_approval(
  p_approval uuid, p_thread uuid, p_owner text, p_approved boolean, p_reason text, p_timeout interval, p_time_zone text
) RETURNS TABLE (message_id text, decision text, reason text, decided_now boolean, pending integer)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_row tool_approvals%ROWTYPE;
  v_decision text;
BEGIN
  PERFORM 1 FROM threads t WHERE t.id = p_thread AND t.owner = p_owner FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT a.* INTO v_row
    FROM tool_approvals a JOIN threads t ON t.id = a.thread_id
   WHERE a.id = p_approval AND a.thread_id = p_thread AND t.owner = p_owner
     FOR UPDATE OF a;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF v_row.decision IS NOT NULL THEN
    RETURN QUERY SELECT v_row.message_id, v_row.decision, v_row.reason, false, NULL::integer;
    RETURN;
  END IF;
  v_decision := CASE
    WHEN v_row.requested_at + p_timeout < now() THEN 'expired'
    WHEN p_approved THEN 'approved'
    ELSE 'denied' END;
  UPDATE tool_approvals a
     SET decision = v_decision, reason = CASE WHEN v_decision = 'expired' THEN NULL ELSE p_reason END, decided_at = now(),
         time_zone = p_time_zone
   WHERE a.id = p_approval;
  -- How many calls of the same reply still wait: at none, the reply goes on.
  RETURN QUERY SELECT a.message_id, a.decision, a.reason, true,
    (SELECT count(*)::integer FROM tool_approvals o WHERE o.thread_id = p_thread AND o.message_id = a.message_id AND o.decision IS NULL)
    FROM tool_approvals a WHERE a.id = p_approval;
END;
$$;
