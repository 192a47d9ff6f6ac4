-- Ends the thread's reply that waits for the user's approval without going
-- on: every call of it that has no result yet gets one saying why it did not
-- run (p_outcome: 'moved_on' when a new message or version came, 'stopped'
-- for Stop, 'forked' for a fork's copy, which holds no approvals), its
-- undecided approvals are decided so, and the reply ends (complete; stopped
-- for Stop and a fork's copy); one approved whose call had not run yet is
-- recorded so too (moot). The results follow the reply's last part: the
-- caller holds the thread's row lock, and nothing was stored after a waiting
-- reply. Returns the reply settled, if any.
CREATE OR REPLACE FUNCTION threadline_settle_waiting(p_thread uuid, p_outcome text, p_error text)
RETURNS TABLE (message_id text, settled integer)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  r messages%ROWTYPE;
  v_next bigint;
  v_parts integer;
BEGIN
  FOR r IN SELECT m.* FROM messages m WHERE m.thread_id = p_thread AND m.status = 'waiting' AND m.part_index = 0 LOOP
    SELECT t.next_seq INTO v_next FROM threads t WHERE t.id = p_thread;
    WITH unanswered AS (
      SELECT c.content::jsonb AS call, c.data->>'approvalId' AS approval_id, c.agent_name,
             -- A call inside a sub-agent's call: its result is too.
             jsonb_strip_nulls(jsonb_build_object('parentCallId', c.data->'parentCallId', 'rootCallId', c.data->'rootCallId')) AS inside,
             row_number() OVER (ORDER BY c.part_index) AS n
        FROM messages c
       WHERE c.thread_id = p_thread AND c.message_id = r.message_id AND c.kind = 'tool_call' AND c.data ? 'approvalId'
         AND NOT EXISTS (SELECT 1 FROM messages x WHERE x.thread_id = p_thread AND x.message_id = r.message_id
                            AND x.kind = 'tool_result' AND x.content::jsonb->>'toolCallId' = c.content::jsonb->>'toolCallId')
    ), last AS (
      SELECT max(m.part_index) AS part_index FROM messages m WHERE m.thread_id = p_thread AND m.message_id = r.message_id
    ), inserted AS (
      INSERT INTO messages (thread_id, seq, message_id, part_index, kind, agent_name, content, content_escaped, data, status,
                            parent_message_id, chosen, active, model)
      SELECT p_thread, v_next + u.n - 1, r.message_id, last.part_index + u.n, 'tool_result', u.agent_name,
             jsonb_build_object('toolCallId', u.call->>'toolCallId', 'toolName', u.call->>'toolName', 'error', p_error,
                                'approval', jsonb_build_object('id', u.approval_id, 'outcome', p_outcome))::text,
             false, jsonb_build_object('approvalId', u.approval_id) || u.inside, r.status, r.parent_message_id, r.chosen, r.active, r.model
        FROM unanswered u, last
      RETURNING data->>'approvalId' AS approval_id
    ), mooted AS (
      -- Approved, but settled before its call ran: it is recorded as what
      -- happened instead (moot), never as a call that was approved and ran.
      UPDATE tool_approvals a SET decision = p_outcome, decided_at = now()
        FROM inserted i
       WHERE a.thread_id = p_thread AND a.id::text = i.approval_id AND a.decision = 'approved'
      RETURNING 1
    )
    SELECT count(*)::integer INTO v_parts FROM inserted;
    UPDATE tool_approvals a SET decision = p_outcome, decided_at = now()
     WHERE a.thread_id = p_thread AND a.message_id = r.message_id AND a.decision IS NULL;
    UPDATE messages m SET status = CASE WHEN p_outcome IN ('stopped', 'forked') THEN 'stopped' ELSE 'complete' END
     WHERE m.thread_id = p_thread AND m.message_id = r.message_id;
    UPDATE threads SET next_seq = next_seq + v_parts, updated_at = now() WHERE id = p_thread;
    -- The owner's pages, on every server, see the card answered.
    PERFORM pg_notify('threadline_threads', json_build_object('owner', t.owner, 'threadId', t.id)::text) FROM threads t WHERE t.id = p_thread;
    RETURN QUERY SELECT r.message_id, v_parts;
  END LOOP;
END;
$$;
