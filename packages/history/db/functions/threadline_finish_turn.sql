-- A turn's outcome: `done`, or `failed`, which counts as done when the
-- message is answered all the same (threadline_answered), so a resend gets
-- that reply rather than a second answer. The lease ends with the turn.
-- Returns the thread of the turn it finished; no row for another turn's.
CREATE OR REPLACE FUNCTION threadline_finish_turn(p_owner text, p_message text, p_turn text, p_status text)
RETURNS TABLE (thread_id uuid)
LANGUAGE sql AS $$
  UPDATE turns tu
     SET status = CASE WHEN p_status = 'failed' AND threadline_answered(tu.thread_id, tu.message_id) THEN 'done' ELSE p_status END,
         lease_until = NULL, updated_at = now()
   WHERE tu.owner = p_owner AND tu.message_id = p_message AND tu.turn_id = p_turn
  RETURNING tu.thread_id
$$;
