-- A fork, restated: its thread says which thread and message it came from,
-- and carries the documents as its copied path has them. A reply that waits
-- for approvals is copied stopped, each call still undecided answered as not
-- decided in the original thread (outcome 'forked', the text denialText gives
-- it in packages/history/src/approvals.ts): its approvals are the source's,
-- which the source alone decides, so the copy can neither be decided nor go on.
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
  -- The documents as the copied path has them: the versions that belong with its replies, numbered again from 1.
  WITH renamed AS (
    SELECT m.message_id, f.message_id AS new_id
      FROM messages m JOIN messages f ON f.thread_id = p_fork AND f.seq = m.seq AND f.part_index = 0
     WHERE m.thread_id = p_source AND m.active AND m.part_index = 0 AND m.seq <= v_first
  ), docs AS (
    SELECT d.id AS old_id, gen_random_uuid() AS new_id, d.title, d.kind, d.language, d.created_at
      FROM documents d
     WHERE d.thread_id = p_source
       AND EXISTS (SELECT 1 FROM document_versions v JOIN renamed r ON r.message_id = v.message_id WHERE v.document_id = d.id)
  ), made AS (
    INSERT INTO documents (id, thread_id, title, kind, language, created_at)
    SELECT new_id, p_fork, title, kind, language, created_at FROM docs
  )
  INSERT INTO document_versions (document_id, version, content, author, message_id, tool_call_id, created_at)
  SELECT docs.new_id, row_number() OVER (PARTITION BY v.document_id ORDER BY v.version), v.content, v.author, r.new_id, v.tool_call_id, v.created_at
    FROM document_versions v JOIN docs ON docs.old_id = v.document_id JOIN renamed r ON r.message_id = v.message_id;
  PERFORM threadline_settle_waiting(p_fork, 'forked', 'This was not decided in the original thread before it was forked, so it did not run in this copy.');
  PERFORM threadline_recount(p_fork);
  RETURN QUERY SELECT true;
END;
$$;
