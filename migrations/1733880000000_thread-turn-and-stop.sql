-- Up Migration

-- One turn per thread, and Stop, decided by the database rather than by the
-- process that happens to run a turn: with several app servers a second
-- message (or a Stop) may reach a process that knows nothing of the running
-- turn.

-- The turn a Stop was asked for (its turn_id). A later turn of the same
-- message (a regenerate, a take-over) takes the message's row over with a new
-- turn_id, so a Stop meant for an earlier turn never ends it.
ALTER TABLE turns ADD COLUMN stop_requested_turn text;

-- A turn's opening, restated whole with one more rule and one more column:
-- while another message's turn of the thread is running, a new message is
-- refused (`busy`), nothing written; the same rule threadline_open_version
-- keeps for regenerates and edits. The same message sent again is not refused:
-- it waits for its running turn, or gets its stored reply, as before. The upsert of the thread holds its
-- row lock to the end of the statement, so of two messages opened at once the
-- second sees the first one's turn.
DROP FUNCTION threadline_open_turn(uuid, text, text, text, text, boolean, text, float8);
CREATE FUNCTION threadline_open_turn(
  p_thread uuid, p_owner text, p_message text, p_turn text,
  p_content text, p_escaped boolean, p_title text, p_lease_ms float8
) RETURNS TABLE (
  thread_id uuid, created boolean, message_count integer, claimed boolean, running boolean, user_seq bigint, summary_seq bigint,
  user_parent text, busy boolean
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_created boolean;
  v_count integer;
  v_summary bigint;
  v_thread uuid;
  v_claimed boolean;
  v_running boolean;
  v_seq bigint;
BEGIN
  SELECT u.created, u.message_count, u.summary_seq INTO v_created, v_count, v_summary
    FROM threadline_upsert_thread(p_thread, p_owner) u;
  IF NOT FOUND THEN
    RETURN;
  END IF;

  -- Only a claim that would start answering the message is refused: not a
  -- retried step of this turn, nor a message answered, running or sent to
  -- another thread already (the claim tells the request where it stands).
  IF NOT EXISTS (SELECT 1 FROM turns tu WHERE tu.owner = p_owner AND tu.message_id = p_message
                    AND (tu.thread_id <> p_thread OR tu.turn_id = p_turn OR tu.status = 'done'
                         OR threadline_turn_running(tu.status, tu.lease_until)))
     AND EXISTS (SELECT 1 FROM turns tu WHERE tu.thread_id = p_thread AND tu.message_id <> p_message
                    AND threadline_turn_running(tu.status, tu.lease_until)) THEN
    RETURN QUERY SELECT p_thread, v_created, v_count, false, true, NULL::bigint, v_summary, NULL::text, true;
    RETURN;
  END IF;

  SELECT c.thread_id, c.claimed, c.running INTO v_thread, v_claimed, v_running
    FROM threadline_claim_turn(p_owner, p_message, p_thread, p_turn, p_lease_ms) c;
  IF v_claimed IS NOT TRUE THEN
    RETURN QUERY SELECT v_thread, v_created, v_count, false, coalesce(v_running, false), NULL::bigint, v_summary, NULL::text, false;
    RETURN;
  END IF;

  SELECT a.seq INTO v_seq
    FROM threadline_append_user_message(p_thread, p_owner, p_message, p_turn, p_content, p_escaped, p_title) a;
  RETURN QUERY SELECT p_thread, v_created, v_count, true, true, v_seq, v_summary,
    (SELECT m.parent_message_id FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0),
    false;
END;
$$;

-- Stop, from whichever process got the request: records it on the thread's
-- running turn and tells every app process (each LISTENs on this channel;
-- the one running the turn aborts it). The notification goes out when the
-- statement commits. Returns the turns told; none when nothing was running.
CREATE FUNCTION threadline_request_stop(p_thread uuid, p_owner text) RETURNS TABLE (turn_id text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_turn text;
BEGIN
  FOR v_turn IN
    UPDATE turns tu SET stop_requested_turn = tu.turn_id, updated_at = now()
     WHERE tu.thread_id = p_thread AND tu.owner = p_owner AND threadline_turn_running(tu.status, tu.lease_until)
    RETURNING tu.turn_id
  LOOP
    PERFORM pg_notify('threadline_stop', json_build_object('threadId', p_thread, 'turnId', v_turn)::text);
    RETURN QUERY SELECT v_turn;
  END LOOP;
END;
$$;
