-- A fork's thread and messages: the source's active path up to and
-- including p_message, every message under a new id and at the same seq
-- (which pairs each copy with its original for what the wings copy after it,
-- in the same transaction: lib/threads/repository.ts). Its thread says which
-- thread and message it came from. The caller recounts the fork once the
-- wings are done. No row when the source is not the owner's; false when the
-- message is not on its active path.
CREATE OR REPLACE FUNCTION threadline_fork_thread(p_source uuid, p_owner text, p_message text, p_fork uuid, p_title text)
RETURNS TABLE (forked boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_first bigint;
  v_last bigint;
BEGIN
  PERFORM 1 FROM threads t WHERE t.id = p_source AND t.owner = p_owner FOR SHARE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT min(m.seq), max(m.seq) INTO v_first, v_last
    FROM messages m WHERE m.thread_id = p_source AND m.message_id = p_message AND m.active;
  IF v_first IS NULL THEN
    RETURN QUERY SELECT false;
    RETURN;
  END IF;

  INSERT INTO threads (id, owner, title, title_source, next_seq, source, source_id, source_metadata, model)
  SELECT p_fork, p_owner, p_title, 'user', v_last + 1, 'fork', p_source::text, jsonb_build_object('messageId', p_message), t.model
    FROM threads t WHERE t.id = p_source;
  WITH renamed AS (
    SELECT m.message_id, gen_random_uuid()::text AS new_id
      FROM messages m WHERE m.thread_id = p_source AND m.active AND m.part_index = 0 AND m.seq <= v_first
  )
  INSERT INTO messages (thread_id, seq, message_id, part_index, kind, agent_name, content, content_escaped, status, data,
                        created_at, parent_message_id, chosen, active, model)
  SELECT p_fork, m.seq, r.new_id, m.part_index, m.kind, m.agent_name, m.content, m.content_escaped, m.status, m.data,
         m.created_at, parent.new_id, true, true, m.model
    FROM messages m
    JOIN renamed r ON r.message_id = m.message_id
    LEFT JOIN renamed parent ON parent.message_id = m.parent_message_id
   WHERE m.thread_id = p_source AND m.active;
  RETURN QUERY SELECT true;
END;
$$;
