-- A compaction summary, stored as the thread's latest only if the latest is
-- still the one it was written after (p_after: its seq, or null for none), so
-- two compactions of one thread never both land, and only if the last message
-- it stands for (the row at its throughSeq) is still on the active path: a
-- compaction planned before the path changed (a regenerate or an edit while
-- it summarized) would stand for messages the path no longer holds. When that
-- row is active so is every message before it on its path, as parents never
-- change. It follows the end of the active path. Neither the message count
-- nor the activity time moves: a summary is not something anyone said. No
-- row when nothing was stored.
CREATE OR REPLACE FUNCTION threadline_append_summary(
  p_thread uuid, p_owner text, p_after bigint, p_message text, p_kind text, p_content text, p_escaped boolean, p_data jsonb
) RETURNS TABLE (seq bigint)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_next bigint;
BEGIN
  -- A compaction that waited for the row lock finds the summary the first one
  -- stored, no longer matches p_after, and stores nothing.
  SELECT t.next_seq INTO v_next FROM threads t
   WHERE t.id = p_thread AND t.owner = p_owner AND t.summary_seq IS NOT DISTINCT FROM p_after FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF p_data->>'throughSeq' IS NOT NULL AND NOT EXISTS (
       SELECT 1 FROM messages m WHERE m.thread_id = p_thread AND m.seq = (p_data->>'throughSeq')::bigint AND m.active) THEN
    RETURN;
  END IF;
  INSERT INTO messages (thread_id, seq, message_id, part_index, kind, content, content_escaped, data, parent_message_id)
  VALUES (p_thread, v_next, p_message, 0, p_kind, p_content, p_escaped, p_data, threadline_path_end(p_thread));
  UPDATE threads SET next_seq = next_seq + 1, summary_seq = v_next WHERE id = p_thread;
  RETURN QUERY SELECT v_next;
END;
$$;
