-- The user's message, stored once (see 1733356800000_turn-rules.sql), now
-- following the end of the active path: its text, then each file it carries
-- as a part of its own (p_files: [{fileId, name, mediaType, size}], checked
-- as the owner's before the turn began).
DROP FUNCTION IF EXISTS threadline_append_user_message(uuid, text, text, text, text, boolean, text);
CREATE OR REPLACE FUNCTION threadline_append_user_message(
  p_thread uuid, p_owner text, p_message text, p_turn text, p_content text, p_escaped boolean, p_title text,
  p_files jsonb DEFAULT '[]'
) RETURNS TABLE (seq bigint, turn_id text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_next bigint;
  v_seq bigint;
  v_turn text;
  v_parent text;
  v_files integer := jsonb_array_length(coalesce(p_files, '[]'));
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
  v_parent := threadline_path_end(p_thread);
  INSERT INTO messages (thread_id, seq, message_id, kind, content, content_escaped, turn_id, parent_message_id)
  VALUES (p_thread, v_next, p_message, 'user', p_content, p_escaped, p_turn, v_parent);
  INSERT INTO messages (thread_id, seq, message_id, part_index, kind, content, content_escaped, data, turn_id, parent_message_id)
  SELECT p_thread, v_next + f.n, p_message, f.n, 'file', f.value->>'name', false,
         jsonb_build_object('fileId', f.value->>'fileId', 'mediaType', f.value->>'mediaType', 'size', (f.value->>'size')::bigint),
         p_turn, v_parent
    FROM jsonb_array_elements(coalesce(p_files, '[]')) WITH ORDINALITY AS f(value, n);
  UPDATE threads
     SET next_seq = next_seq + 1 + v_files, message_count = message_count + 1, updated_at = now(), title = coalesce(title, p_title)
   WHERE id = p_thread;
  RETURN QUERY SELECT v_next, p_turn;
END;
$$;
