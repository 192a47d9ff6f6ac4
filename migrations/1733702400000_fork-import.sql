-- Up Migration

-- A fork: a new thread of the same owner holding the source's active path up
-- to and including p_message, which must be on that path. Every message gets
-- a new id (its parent the new id of its parent) and keeps its seq, so a
-- summary's throughSeq still names the row it names in the source; next_seq
-- continues past them. Its title (p_title) is the user's: the model's title
-- never replaces it. The source's row is share-locked, so no turn, regenerate
-- or edit changes its path while it is copied; the source itself is not
-- written. Returns true when forked, false when p_message is not on the
-- active path; no row when the source is not the owner's thread.
CREATE FUNCTION threadline_fork_thread(p_source uuid, p_owner text, p_message text, p_fork uuid, p_title text)
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

  INSERT INTO threads (id, owner, title, title_source, next_seq) VALUES (p_fork, p_owner, p_title, 'user', v_last + 1);
  WITH renamed AS (
    SELECT m.message_id, gen_random_uuid()::text AS new_id
      FROM messages m WHERE m.thread_id = p_source AND m.active AND m.part_index = 0 AND m.seq <= v_first
  )
  INSERT INTO messages (thread_id, seq, message_id, part_index, kind, agent_name, content, content_escaped, status, data,
                        created_at, parent_message_id, chosen, active)
  SELECT p_fork, m.seq, r.new_id, m.part_index, m.kind, m.agent_name, m.content, m.content_escaped, m.status, m.data,
         m.created_at, parent.new_id, true, true
    FROM messages m
    JOIN renamed r ON r.message_id = m.message_id
    LEFT JOIN renamed parent ON parent.message_id = m.parent_message_id
   WHERE m.thread_id = p_source AND m.active;
  PERFORM threadline_recount(p_fork);
  RETURN QUERY SELECT true;
END;
$$;

-- An imported thread, whole or not at all: the thread row and every part
-- row, one array element per row (the caller has checked the file: each
-- message follows an earlier one, seqs grow, at most one chosen version per
-- parent, and which messages form the active path). Its title is the
-- user's, as a fork's. Its counters come from its active path.
CREATE FUNCTION threadline_import_thread(
  p_thread uuid, p_owner text, p_title text, p_created timestamptz,
  p_seqs bigint[], p_messages text[], p_part_indexes integer[], p_kinds text[], p_agents text[], p_contents text[],
  p_escaped boolean[], p_data jsonb[], p_statuses text[], p_created_ats timestamptz[], p_parents text[],
  p_chosen boolean[], p_active boolean[]
) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO threads (id, owner, title, title_source, created_at, next_seq)
  VALUES (p_thread, p_owner, p_title, 'user', p_created, coalesce((SELECT max(s) FROM unnest(p_seqs) s), 0) + 1);
  INSERT INTO messages (thread_id, seq, message_id, part_index, kind, agent_name, content, content_escaped, data, status,
                        created_at, parent_message_id, chosen, active)
  SELECT p_thread, r.seq, r.message_id, r.part_index, r.kind, r.agent_name, r.content, r.escaped, r.data, r.status,
         r.created_at, r.parent, r.chosen, r.active
    FROM unnest(p_seqs, p_messages, p_part_indexes, p_kinds, p_agents, p_contents, p_escaped, p_data, p_statuses,
                p_created_ats, p_parents, p_chosen, p_active)
           AS r(seq, message_id, part_index, kind, agent_name, content, escaped, data, status, created_at, parent, chosen, active);
  PERFORM threadline_recount(p_thread);
END;
$$;
