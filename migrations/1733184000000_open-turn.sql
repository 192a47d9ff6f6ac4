-- Up Migration

-- A turn's opening in one round trip: upsert the thread (never another
-- owner's), claim the user's message for this turn (see the turns table), and
-- store the message once, with its seq, under the thread's row lock. Returns
-- no row for another owner's thread; `claimed` false with the thread of the
-- turn that has the message otherwise (`running`: that turn is alive).
CREATE FUNCTION threadline_open_turn(
  p_thread uuid, p_owner text, p_message text, p_turn text,
  p_content text, p_escaped boolean, p_title text, p_lease_ms float8
) RETURNS TABLE (
  thread_id uuid, created boolean, message_count integer, claimed boolean, running boolean, user_seq bigint, summary_seq bigint
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_created boolean;
  v_count integer;
  v_summary bigint;
  v_next bigint;
  v_thread uuid;
  v_running boolean;
  v_seq bigint;
BEGIN
  INSERT INTO threads AS t (id, owner) VALUES (p_thread, p_owner)
  ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id WHERE t.owner = EXCLUDED.owner
  RETURNING (t.xmax = 0), t.message_count, t.summary_seq, t.next_seq INTO v_created, v_count, v_summary, v_next;
  IF NOT FOUND THEN
    RETURN;
  END IF;

  INSERT INTO turns AS tu (owner, message_id, thread_id, turn_id, status, lease_until)
  VALUES (p_owner, p_message, p_thread, p_turn, 'running', now() + make_interval(secs => p_lease_ms / 1000))
  ON CONFLICT (owner, message_id) DO UPDATE
     SET turn_id = EXCLUDED.turn_id, status = 'running', lease_until = EXCLUDED.lease_until, updated_at = now()
   WHERE tu.thread_id = EXCLUDED.thread_id
     AND (tu.turn_id = EXCLUDED.turn_id
          OR tu.status = 'failed'
          OR (tu.status = 'running' AND tu.lease_until < now()))
  RETURNING tu.thread_id INTO v_thread;
  IF NOT FOUND THEN
    -- Another turn has the message (in this thread or another): say which, and whether it runs.
    SELECT tu.thread_id, tu.status = 'running' AND (tu.lease_until IS NULL OR tu.lease_until >= now())
      INTO v_thread, v_running
      FROM turns tu WHERE tu.owner = p_owner AND tu.message_id = p_message;
    RETURN QUERY SELECT v_thread, v_created, v_count, false, coalesce(v_running, false), NULL::bigint, v_summary;
    RETURN;
  END IF;

  -- Stored once: a turn that takes over an interrupted one finds the message there.
  SELECT m.seq INTO v_seq FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0;
  IF NOT FOUND THEN
    INSERT INTO messages (thread_id, seq, message_id, kind, content, content_escaped, turn_id)
    VALUES (p_thread, v_next, p_message, 'user', p_content, p_escaped, p_turn);
    UPDATE threads
       SET next_seq = next_seq + 1, message_count = message_count + 1, updated_at = now(), title = coalesce(title, p_title)
     WHERE id = p_thread;
    v_seq := v_next;
  END IF;
  RETURN QUERY SELECT p_thread, v_created, v_count, true, true, v_seq, v_summary;
END;
$$;
