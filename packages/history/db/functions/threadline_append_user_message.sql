-- The user's message, stored once (see 1733356800000_turn-rules.sql), now
-- following the end of the active path.
CREATE OR REPLACE FUNCTION threadline_append_user_message(
  p_thread uuid, p_owner text, p_message text, p_turn text, p_content text, p_escaped boolean, p_title text
) RETURNS TABLE (seq bigint, turn_id text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_next bigint;
  v_seq bigint;
  v_turn text;
BEGIN
  SELECT t.next_seq INTO v_next FROM threads t WHERE t.id = p_thread AND t.owner = p_owner FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT m.seq, m.turn_id INTO v_seq, v_turn
    FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0;
  IF FOUND THEN
    RETURN QUERY SELECT v_seq, v_turn;
    RETURN;
  END IF;
  INSERT INTO messages (thread_id, seq, message_id, kind, content, content_escaped, turn_id, parent_message_id)
  VALUES (p_thread, v_next, p_message, 'user', p_content, p_escaped, p_turn, threadline_path_end(p_thread));
  UPDATE threads
     SET next_seq = next_seq + 1, message_count = message_count + 1, updated_at = now(), title = coalesce(title, p_title)
   WHERE id = p_thread;
  RETURN QUERY SELECT v_next, p_turn;
END;
$$;
