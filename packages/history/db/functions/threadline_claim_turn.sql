CREATE OR REPLACE FUNCTION threadline_claim_turn(p_owner text, p_message text, p_thread uuid, p_turn text, p_lease_ms float8, p_runner bigint)
RETURNS TABLE (thread_id uuid, claimed boolean, running boolean, busy boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_thread uuid;
BEGIN
  PERFORM 1 FROM threads t WHERE t.id = p_thread FOR UPDATE;
  -- A statement of a plpgsql function sees what committed before it began:
  -- the turns of claims that held the thread's lock before this one.
  IF NOT EXISTS (SELECT 1 FROM turns tu WHERE tu.owner = p_owner AND tu.message_id = p_message
                    AND (tu.thread_id <> p_thread OR tu.turn_id = p_turn OR tu.status = 'done' OR threadline_turn_running(tu)))
     AND EXISTS (SELECT 1 FROM turns tu WHERE tu.thread_id = p_thread AND tu.message_id <> p_message AND tu.status <> 'done'
                    AND threadline_turn_running(tu)) THEN
    RETURN QUERY SELECT p_thread, false, true, true;
    RETURN;
  END IF;

  INSERT INTO turns AS tu (owner, message_id, thread_id, turn_id, status, lease_until, runner)
  VALUES (p_owner, p_message, p_thread, p_turn, 'running', now() + make_interval(secs => p_lease_ms / 1000), p_runner)
  ON CONFLICT (owner, message_id) DO UPDATE
     SET turn_id = EXCLUDED.turn_id, status = 'running', lease_until = EXCLUDED.lease_until, runner = EXCLUDED.runner, updated_at = now(),
         -- A new turn of the message (a retry after a failure) answers it anew: its rounds start again.
         rounds = CASE WHEN tu.turn_id = EXCLUDED.turn_id THEN tu.rounds ELSE 0 END
   WHERE tu.thread_id = EXCLUDED.thread_id
     AND (tu.turn_id = EXCLUDED.turn_id OR (tu.status <> 'done' AND NOT threadline_turn_running(tu)))
  RETURNING tu.thread_id INTO v_thread;
  IF FOUND THEN
    RETURN QUERY SELECT v_thread, true, true, false;
    RETURN;
  END IF;
  -- A concurrent first claim of the message (in another thread) the INSERT waited for is visible here.
  RETURN QUERY SELECT tu.thread_id, false, threadline_turn_running(tu), false
    FROM turns tu WHERE tu.owner = p_owner AND tu.message_id = p_message;
END;
$$;
