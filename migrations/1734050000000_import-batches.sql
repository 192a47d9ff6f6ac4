-- Up Migration

-- An import is written in batches inside one transaction (the caller's), so a
-- file of any size is written without holding all of it: the thread row,
-- then its part rows a batch at a time, then its counters. The caller has
-- checked the whole file first (each message follows an earlier one, seqs
-- grow, at most one chosen version per parent, which messages form the
-- active path); a failure of any batch rolls back the thread with it.
DROP FUNCTION threadline_import_thread(uuid, text, text, timestamptz, bigint[], text[], integer[], text[], text[], text[],
                                       boolean[], jsonb[], text[], timestamptz[], text[], boolean[], boolean[]);

-- One batch of an imported thread's part rows, one array element per row.
CREATE FUNCTION threadline_import_parts(
  p_thread uuid,
  p_seqs bigint[], p_messages text[], p_part_indexes integer[], p_kinds text[], p_agents text[], p_contents text[],
  p_escaped boolean[], p_data jsonb[], p_statuses text[], p_created_ats timestamptz[], p_parents text[],
  p_chosen boolean[], p_active boolean[]
) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO messages (thread_id, seq, message_id, part_index, kind, agent_name, content, content_escaped, data, status,
                        created_at, parent_message_id, chosen, active)
  SELECT p_thread, r.seq, r.message_id, r.part_index, r.kind, r.agent_name, r.content, r.escaped, r.data, r.status,
         r.created_at, r.parent, r.chosen, r.active
    FROM unnest(p_seqs, p_messages, p_part_indexes, p_kinds, p_agents, p_contents, p_escaped, p_data, p_statuses,
                p_created_ats, p_parents, p_chosen, p_active)
           AS r(seq, message_id, part_index, kind, agent_name, content, escaped, data, status, created_at, parent, chosen, active)
$$;

-- After the last batch: the thread goes on after its last part, and its
-- counters come from its active path.
CREATE FUNCTION threadline_import_finish(p_thread uuid) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE threads t
     SET next_seq = coalesce((SELECT max(m.seq) FROM messages m WHERE m.thread_id = p_thread), 0) + 1
   WHERE t.id = p_thread;
  PERFORM threadline_recount(p_thread);
END;
$$;
