DROP FUNCTION IF EXISTS threadline_open_version(uuid, text, text, text, text, boolean, float8, text, bigint);
-- p_files: an edit's files (threadline_append_user_message); a regenerate reads the stored message's back (user_files).
CREATE OR REPLACE FUNCTION threadline_open_version(
  p_thread uuid, p_owner text, p_message text, p_turn text, p_content text, p_escaped boolean, p_lease_ms float8, p_replaces text,
  p_runner bigint, p_files jsonb
) RETURNS TABLE (
  refused text, thread_id uuid, claimed boolean, running boolean, message_count integer, summary_seq bigint,
  user_seq bigint, user_content text, user_escaped boolean, user_parent text, user_files jsonb
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  r messages%ROWTYPE;
  u messages%ROWTYPE;
  v_stored boolean;
  v_thread uuid;
  v_claimed boolean;
  v_running boolean;
  v_seq bigint;
BEGIN
  -- Under the thread's row lock: no other writer of the thread moves the path meanwhile.
  PERFORM 1 FROM threads t WHERE t.id = p_thread AND t.owner = p_owner FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT * INTO r FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_replaces AND m.part_index = 0;
  IF NOT FOUND OR r.kind = 'system_event' THEN
    RETURN QUERY SELECT 'not_found', p_thread, false, false, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text, NULL::jsonb;
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM turns tu WHERE tu.thread_id = p_thread AND tu.message_id <> p_message
                AND tu.status <> 'done' AND threadline_turn_running(tu)) THEN
    RETURN QUERY SELECT 'busy', p_thread, false, true, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text, NULL::jsonb;
    RETURN;
  END IF;

  IF r.kind = 'user' THEN
    IF p_message = p_replaces THEN
      RETURN QUERY SELECT 'same_id', p_thread, false, false, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text, NULL::jsonb;
      RETURN;
    END IF;
    -- The new message stored already: this edit sent again, or its retried step.
    v_stored := EXISTS (SELECT 1 FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0);
    IF NOT v_stored AND NOT r.active THEN
      RETURN QUERY SELECT 'changed', p_thread, false, false, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text, NULL::jsonb;
      RETURN;
    END IF;
    SELECT c.thread_id, c.claimed, c.running INTO v_thread, v_claimed, v_running
      FROM threadline_claim_turn(p_owner, p_message, p_thread, p_turn, p_lease_ms, p_runner) c;
    IF v_claimed IS NOT TRUE THEN
      RETURN QUERY SELECT NULL::text, v_thread, false, coalesce(v_running, false), 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text, NULL::jsonb;
      RETURN;
    END IF;
    -- A reply that waits for the user's approval is settled first: its calls
    -- did not run because the user moved on (the words are denialText's, in
    -- packages/history/src/approvals.ts; a test holds them equal).
    PERFORM threadline_settle_waiting(p_thread, 'moved_on', 'The user moved on');
    IF NOT v_stored THEN
      PERFORM threadline_branch(p_thread, p_owner, p_replaces);
    END IF;
    SELECT a.seq INTO v_seq FROM threadline_append_user_message(p_thread, p_owner, p_message, p_turn, p_content, p_escaped, NULL, p_files) a;
    RETURN QUERY SELECT NULL::text, p_thread, true, true, t.message_count - 1, t.summary_seq, v_seq, NULL::text, NULL::boolean,
      (SELECT m.parent_message_id FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0),
      NULL::jsonb
      FROM threads t WHERE t.id = p_thread;
    RETURN;
  END IF;

  -- A regenerate: p_message is the user's message the reply answers, on the
  -- path before it with no other user's message between them.
  IF NOT r.active THEN
    RETURN QUERY SELECT 'changed', p_thread, false, false, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text, NULL::jsonb;
    RETURN;
  END IF;
  -- A posted reminder (threadline_post_reminder) answers no message: answering
  -- the one before it again would put a reply where the reminder was.
  IF r.data ? 'reminder' THEN
    RETURN QUERY SELECT 'reminder', p_thread, false, false, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text, NULL::jsonb;
    RETURN;
  END IF;
  SELECT * INTO u FROM messages m
   WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0 AND m.kind = 'user' AND m.active AND m.seq < r.seq;
  IF NOT FOUND OR EXISTS (SELECT 1 FROM messages x WHERE x.thread_id = p_thread AND x.kind = 'user' AND x.active
                             AND x.seq > u.seq AND x.seq < r.seq) THEN
    RETURN QUERY SELECT 'not_reply', p_thread, false, false, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text, NULL::jsonb;
    RETURN;
  END IF;
  -- The message's claim, taken over from its finished turn (or kept: a retried step of this one).
  UPDATE turns tu
     SET turn_id = p_turn, status = 'running', lease_until = now() + make_interval(secs => p_lease_ms / 1000), runner = p_runner,
         updated_at = now(), rounds = CASE WHEN tu.turn_id = p_turn THEN tu.rounds ELSE 0 END
   WHERE tu.owner = p_owner AND tu.message_id = p_message AND tu.thread_id = p_thread
     AND (tu.turn_id = p_turn OR NOT threadline_turn_running(tu));
  IF NOT FOUND THEN
    IF EXISTS (SELECT 1 FROM turns tu WHERE tu.owner = p_owner AND tu.message_id = p_message) THEN
      -- Its turn is running: this request waits for it, like a message sent twice.
      RETURN QUERY SELECT NULL::text, p_thread, false, true, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text, NULL::jsonb;
      RETURN;
    END IF;
    -- A message stored before turns were recorded.
    INSERT INTO turns (owner, message_id, thread_id, turn_id, status, lease_until, runner)
    VALUES (p_owner, p_message, p_thread, p_turn, 'running', now() + make_interval(secs => p_lease_ms / 1000), p_runner);
  END IF;
  -- A reply that waits for the user's approval is settled first: its calls
  -- did not run because the user moved on (the words are denialText's, in
  -- packages/history/src/approvals.ts; a test holds them equal).
  PERFORM threadline_settle_waiting(p_thread, 'moved_on', 'The user moved on');
  -- What the thread held before the user's message: what this turn's model reads of it.
  RETURN QUERY SELECT NULL::text, p_thread, true, true,
    (SELECT count(*)::integer FROM messages m WHERE m.thread_id = p_thread AND m.active AND m.part_index = 0
        AND m.kind <> 'system_event' AND m.seq < u.seq),
    (SELECT max(m.seq) FROM messages m WHERE m.thread_id = p_thread AND m.active AND m.kind = 'system_event' AND m.seq < u.seq),
    u.seq, u.content, u.content_escaped, u.parent_message_id,
    (SELECT coalesce(jsonb_agg(jsonb_build_object('fileId', f.data->>'fileId', 'name', f.content, 'mediaType', f.data->>'mediaType',
                                                  'size', (f.data->>'size')::bigint) ORDER BY f.part_index), '[]')
       FROM messages f WHERE f.thread_id = p_thread AND f.message_id = p_message AND f.kind = 'file');
END;
$$;
