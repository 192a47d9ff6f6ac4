-- Who goes on with a reply that waited for the user's approval, once every
-- call of it is decided: one turn, under the claim of the user's message the
-- reply answers (its lease and runner, as a turn's), taken over only from a
-- turn that is not running (done, or its runner died), or kept by the same turn. Calls undecided past
-- p_timeout are decided expired here. Refused ('not_waiting', 'pending',
-- 'busy') with no claim taken. `round`: which time this is that the
-- message's reply goes on (1 the first; the same turn claiming again keeps
-- its count), so the caller can hold a message to a bounded number of rounds.
DROP FUNCTION IF EXISTS threadline_claim_continuation(text, uuid, text, text, float8, bigint, interval);
CREATE FUNCTION threadline_claim_continuation(
  p_owner text, p_thread uuid, p_reply text, p_turn text, p_lease_ms float8, p_runner bigint, p_timeout interval
) RETURNS TABLE (refused text, message_id text, decisions jsonb, round integer)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  r messages%ROWTYPE;
  v_round integer;
BEGIN
  PERFORM 1 FROM threads t WHERE t.id = p_thread AND t.owner = p_owner FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT * INTO r FROM messages m
   WHERE m.thread_id = p_thread AND m.message_id = p_reply AND m.part_index = 0 AND m.status = 'waiting';
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not_waiting', NULL::text, NULL::jsonb, NULL::integer;
    RETURN;
  END IF;
  UPDATE tool_approvals a SET decision = 'expired', decided_at = now()
   WHERE a.thread_id = p_thread AND a.message_id = p_reply AND a.decision IS NULL AND a.requested_at + p_timeout < now();
  IF EXISTS (SELECT 1 FROM tool_approvals a WHERE a.thread_id = p_thread AND a.message_id = p_reply AND a.decision IS NULL) THEN
    RETURN QUERY SELECT 'pending', r.parent_message_id, NULL::jsonb, NULL::integer;
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM turns tu WHERE tu.thread_id = p_thread AND tu.message_id <> r.parent_message_id
                AND tu.status <> 'done' AND threadline_turn_running(tu)) THEN
    RETURN QUERY SELECT 'busy', r.parent_message_id, NULL::jsonb, NULL::integer;
    RETURN;
  END IF;
  INSERT INTO turns AS tu (owner, message_id, thread_id, turn_id, status, lease_until, runner, rounds)
  VALUES (p_owner, r.parent_message_id, p_thread, p_turn, 'running', now() + make_interval(secs => p_lease_ms / 1000), p_runner, 1)
  ON CONFLICT (owner, message_id) DO UPDATE
     SET turn_id = EXCLUDED.turn_id, status = 'running', lease_until = EXCLUDED.lease_until, runner = EXCLUDED.runner, updated_at = now(),
         rounds = CASE WHEN tu.turn_id = EXCLUDED.turn_id THEN tu.rounds ELSE tu.rounds + 1 END
   WHERE tu.thread_id = EXCLUDED.thread_id AND (tu.turn_id = EXCLUDED.turn_id OR NOT threadline_turn_running(tu))
  RETURNING tu.rounds INTO v_round;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'busy', r.parent_message_id, NULL::jsonb, NULL::integer;
    RETURN;
  END IF;
  RETURN QUERY SELECT NULL::text, r.parent_message_id,
    (SELECT jsonb_agg(jsonb_build_object('id', a.id, 'toolCallId', a.tool_call_id, 'outcome', a.decision)
                      || CASE WHEN a.reason IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('reason', a.reason) END
                      || CASE WHEN a.time_zone IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('timeZone', a.time_zone) END)
       FROM tool_approvals a WHERE a.thread_id = p_thread AND a.message_id = p_reply),
    v_round;
END;
$$;
