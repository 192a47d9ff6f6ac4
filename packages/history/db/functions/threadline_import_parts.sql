-- One batch of an imported thread's part rows, one array element per row.
DROP FUNCTION IF EXISTS threadline_import_parts(uuid, bigint[], text[], integer[], text[], text[], text[], boolean[], jsonb[], text[], timestamptz[], text[], boolean[], boolean[]);
CREATE OR REPLACE FUNCTION threadline_import_parts(
  p_thread uuid,
  p_seqs bigint[], p_messages text[], p_part_indexes integer[], p_kinds text[], p_agents text[], p_contents text[],
  p_escaped boolean[], p_data jsonb[], p_statuses text[], p_created_ats timestamptz[], p_parents text[],
  p_chosen boolean[], p_active boolean[], p_models text[]
) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO messages (thread_id, seq, message_id, part_index, kind, agent_name, content, content_escaped, data, status,
                        created_at, parent_message_id, chosen, active, model)
  SELECT p_thread, r.seq, r.message_id, r.part_index, r.kind, r.agent_name, r.content, r.escaped, r.data, r.status,
         r.created_at, r.parent, r.chosen, r.active, r.model
    FROM unnest(p_seqs, p_messages, p_part_indexes, p_kinds, p_agents, p_contents, p_escaped, p_data, p_statuses,
                p_created_ats, p_parents, p_chosen, p_active, p_models)
           AS r(seq, message_id, part_index, kind, agent_name, content, escaped, data, status, created_at, parent, chosen, active, model)
$$;
