DROP FUNCTION IF EXISTS threadline_append_reply(uuid, text, text, text[], text[], text[], boolean[], jsonb[], text, text, text, text);
DROP FUNCTION IF EXISTS threadline_append_reply(uuid, text, text, text[], text[], text[], boolean[], jsonb[], text, text, text, text, text);
CREATE OR REPLACE FUNCTION threadline_append_reply(
  p_thread uuid, p_owner text, p_message text,
  p_kinds text[], p_agents text[], p_contents text[], p_escaped boolean[], p_data jsonb[], p_status text,
  p_turn_message text, p_turn text, p_replaces text, p_model text, p_usage jsonb
) RETURNS TABLE (first_seq bigint, parent_message_id text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_next bigint;
  v_parent text;
  v_parts bigint;
  v_messages bigint;
  v_first bigint;
BEGIN
  SELECT t.next_seq INTO v_next FROM threads t WHERE t.id = p_thread AND t.owner = p_owner FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  UPDATE turns SET status = 'done', lease_until = NULL, updated_at = now()
   WHERE owner = p_owner AND message_id = p_turn_message AND turn_id = p_turn;

  SELECT m.parent_message_id INTO v_parent
    FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0;
  IF NOT FOUND AND p_replaces IS NOT NULL THEN
    SELECT m.parent_message_id INTO v_parent
      FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_replaces AND m.part_index = 0;
  ELSIF NOT FOUND THEN
    v_parent := threadline_path_end(p_thread);
  END IF;

  WITH incoming AS (
    SELECT r.*, row_number() OVER (ORDER BY r.part_index) AS n
      FROM unnest(p_kinds, p_agents, p_contents, p_escaped, p_data)
             WITH ORDINALITY AS r(kind, agent_name, content, escaped, data, part_index)
     WHERE NOT EXISTS (
       SELECT 1 FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = r.part_index - 1)
  ), inserted AS (
    -- A new version joins the path only when it is selected, below.
    INSERT INTO messages (thread_id, seq, message_id, part_index, kind, agent_name, content, content_escaped, data, status,
                          parent_message_id, chosen, active, model)
    SELECT p_thread, v_next + incoming.n - 1, p_message, incoming.part_index - 1, incoming.kind, incoming.agent_name,
           incoming.content, incoming.escaped, incoming.data, p_status, v_parent, p_replaces IS NULL, p_replaces IS NULL, p_model
      FROM incoming
    RETURNING seq, part_index
  )
  SELECT count(*), count(*) FILTER (WHERE inserted.part_index = 0), min(inserted.seq)
    INTO v_parts, v_messages, v_first FROM inserted;

  -- What the run's model calls spent, each call once (a retried write, or a replayed step, brings the same ids).
  INSERT INTO model_usage (id, thread_id, message_id, agent, purpose, model, input_tokens, output_tokens, cached_tokens, reasoning_tokens)
  SELECT u.id, p_thread, p_message, u.agent, u.purpose, u.model, u."inputTokens", u."outputTokens", u."cachedTokens", u."reasoningTokens"
    FROM jsonb_to_recordset(coalesce(p_usage, '[]'::jsonb))
           AS u(id uuid, agent text, purpose text, model text, "inputTokens" bigint, "outputTokens" bigint, "cachedTokens" bigint, "reasoningTokens" bigint)
  ON CONFLICT (id) DO NOTHING;

  -- A call that waits for the user's approval is recorded as waiting with the reply that holds it.
  INSERT INTO tool_approvals (id, thread_id, message_id, tool_call_id, tool_name)
  SELECT (r.data->>'approvalId')::uuid, p_thread, p_message, r.content::jsonb->>'toolCallId', r.content::jsonb->>'toolName'
    FROM unnest(p_kinds, p_contents, p_data) AS r(kind, content, data)
   WHERE r.kind = 'tool_call' AND r.data ? 'approvalId'
  ON CONFLICT (id) DO NOTHING;
  -- A call approved but stopped before it ran (Stop came as its turn began)
  -- is recorded as its result says: never as a call that was approved and ran.
  UPDATE tool_approvals a SET decision = 'stopped', decided_at = now()
    FROM unnest(p_kinds, p_contents) AS r(kind, content)
   WHERE r.kind = 'tool_result' AND a.thread_id = p_thread AND a.message_id = p_message AND a.decision = 'approved'
     AND a.id::text = r.content::jsonb->'approval'->>'id' AND r.content::jsonb->'approval'->>'outcome' = 'stopped';
  -- A reply stored before (one that goes on after a decision, or a retry)
  -- takes the status of where it ends now; a new one was written with it.
  IF v_messages = 0 THEN
    UPDATE messages m SET status = p_status
     WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.status <> p_status;
  END IF;

  -- The thread's model is the one its latest reply was written with: the picker's start after a reload.
  IF v_parts > 0 THEN
    UPDATE threads
       SET next_seq = next_seq + v_parts, message_count = message_count + v_messages, updated_at = now(),
           model = coalesce(p_model, model)
     WHERE id = p_thread;
  END IF;
  IF p_replaces IS NOT NULL THEN
    PERFORM threadline_select_version(p_thread, p_owner, p_message);
  END IF;
  RETURN QUERY SELECT m.seq, m.parent_message_id FROM messages m
   WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0;
END;
$$;
