-- Up Migration

-- Each message's signature now covers its parent (lib/auth/history-signature.ts):
-- on a path with versions beside it, seqs leave gaps where other versions
-- sit, so "no message missing" is the chain of parents, not adjacent seqs.
-- So the functions that store a message tell its parent: opening a turn (the
-- user's message) and storing a reply. Their rules are unchanged; each is
-- restated whole with one more column.

DROP FUNCTION threadline_open_turn(uuid, text, text, text, text, boolean, text, float8);
CREATE FUNCTION threadline_open_turn(
  p_thread uuid, p_owner text, p_message text, p_turn text,
  p_content text, p_escaped boolean, p_title text, p_lease_ms float8
) RETURNS TABLE (
  thread_id uuid, created boolean, message_count integer, claimed boolean, running boolean, user_seq bigint, summary_seq bigint,
  user_parent text
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_created boolean;
  v_count integer;
  v_summary bigint;
  v_thread uuid;
  v_claimed boolean;
  v_running boolean;
  v_seq bigint;
BEGIN
  SELECT u.created, u.message_count, u.summary_seq INTO v_created, v_count, v_summary
    FROM threadline_upsert_thread(p_thread, p_owner) u;
  IF NOT FOUND THEN
    RETURN;
  END IF;

  SELECT c.thread_id, c.claimed, c.running INTO v_thread, v_claimed, v_running
    FROM threadline_claim_turn(p_owner, p_message, p_thread, p_turn, p_lease_ms) c;
  IF v_claimed IS NOT TRUE THEN
    RETURN QUERY SELECT v_thread, v_created, v_count, false, coalesce(v_running, false), NULL::bigint, v_summary, NULL::text;
    RETURN;
  END IF;

  SELECT a.seq INTO v_seq
    FROM threadline_append_user_message(p_thread, p_owner, p_message, p_turn, p_content, p_escaped, p_title) a;
  RETURN QUERY SELECT p_thread, v_created, v_count, true, true, v_seq, v_summary,
    (SELECT m.parent_message_id FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0);
END;
$$;

DROP FUNCTION threadline_open_version(uuid, text, text, text, text, boolean, float8, text);
CREATE FUNCTION threadline_open_version(
  p_thread uuid, p_owner text, p_message text, p_turn text, p_content text, p_escaped boolean, p_lease_ms float8, p_replaces text
) RETURNS TABLE (
  refused text, thread_id uuid, claimed boolean, running boolean, message_count integer, summary_seq bigint,
  user_seq bigint, user_content text, user_escaped boolean, user_parent text
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
    RETURN QUERY SELECT 'not_found', p_thread, false, false, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text;
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM turns tu WHERE tu.thread_id = p_thread AND tu.message_id <> p_message
                AND threadline_turn_running(tu.status, tu.lease_until)) THEN
    RETURN QUERY SELECT 'busy', p_thread, false, true, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text;
    RETURN;
  END IF;

  IF r.kind = 'user' THEN
    IF p_message = p_replaces THEN
      RETURN QUERY SELECT 'same_id', p_thread, false, false, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text;
      RETURN;
    END IF;
    -- The new message stored already: this edit sent again, or its retried step.
    v_stored := EXISTS (SELECT 1 FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0);
    IF NOT v_stored AND NOT r.active THEN
      RETURN QUERY SELECT 'changed', p_thread, false, false, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text;
      RETURN;
    END IF;
    SELECT c.thread_id, c.claimed, c.running INTO v_thread, v_claimed, v_running
      FROM threadline_claim_turn(p_owner, p_message, p_thread, p_turn, p_lease_ms) c;
    IF v_claimed IS NOT TRUE THEN
      RETURN QUERY SELECT NULL::text, v_thread, false, coalesce(v_running, false), 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text;
      RETURN;
    END IF;
    IF NOT v_stored THEN
      PERFORM threadline_branch(p_thread, p_owner, p_replaces);
    END IF;
    SELECT a.seq INTO v_seq FROM threadline_append_user_message(p_thread, p_owner, p_message, p_turn, p_content, p_escaped, NULL) a;
    RETURN QUERY SELECT NULL::text, p_thread, true, true, t.message_count - 1, t.summary_seq, v_seq, NULL::text, NULL::boolean,
      (SELECT m.parent_message_id FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0)
      FROM threads t WHERE t.id = p_thread;
    RETURN;
  END IF;

  -- A regenerate: p_message is the user's message the reply answers, on the
  -- path before it with no other user's message between them.
  IF NOT r.active THEN
    RETURN QUERY SELECT 'changed', p_thread, false, false, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text;
    RETURN;
  END IF;
  SELECT * INTO u FROM messages m
   WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0 AND m.kind = 'user' AND m.active AND m.seq < r.seq;
  IF NOT FOUND OR EXISTS (SELECT 1 FROM messages x WHERE x.thread_id = p_thread AND x.kind = 'user' AND x.active
                             AND x.seq > u.seq AND x.seq < r.seq) THEN
    RETURN QUERY SELECT 'not_reply', p_thread, false, false, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text;
    RETURN;
  END IF;
  -- The message's claim, taken over from its finished turn (or kept: a retried step of this one).
  UPDATE turns tu
     SET turn_id = p_turn, status = 'running', lease_until = now() + make_interval(secs => p_lease_ms / 1000), updated_at = now()
   WHERE tu.owner = p_owner AND tu.message_id = p_message AND tu.thread_id = p_thread
     AND (tu.turn_id = p_turn OR NOT threadline_turn_running(tu.status, tu.lease_until));
  IF NOT FOUND THEN
    IF EXISTS (SELECT 1 FROM turns tu WHERE tu.owner = p_owner AND tu.message_id = p_message) THEN
      -- Its turn is running: this request waits for it, like a message sent twice.
      RETURN QUERY SELECT NULL::text, p_thread, false, true, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text;
      RETURN;
    END IF;
    -- A message stored before turns were recorded.
    INSERT INTO turns (owner, message_id, thread_id, turn_id, status, lease_until)
    VALUES (p_owner, p_message, p_thread, p_turn, 'running', now() + make_interval(secs => p_lease_ms / 1000));
  END IF;
  -- What the thread held before the user's message: what this turn's model reads of it.
  RETURN QUERY SELECT NULL::text, p_thread, true, true,
    (SELECT count(*)::integer FROM messages m WHERE m.thread_id = p_thread AND m.active AND m.part_index = 0
        AND m.kind <> 'system_event' AND m.seq < u.seq),
    (SELECT max(m.seq) FROM messages m WHERE m.thread_id = p_thread AND m.active AND m.kind = 'system_event' AND m.seq < u.seq),
    u.seq, u.content, u.content_escaped, u.parent_message_id;
END;
$$;

DROP FUNCTION threadline_append_reply(uuid, text, text, text[], text[], text[], boolean[], jsonb[], text, text, text, text);
CREATE FUNCTION threadline_append_reply(
  p_thread uuid, p_owner text, p_message text,
  p_kinds text[], p_agents text[], p_contents text[], p_escaped boolean[], p_data jsonb[], p_status text,
  p_turn_message text, p_turn text, p_replaces text
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
                          parent_message_id, chosen, active)
    SELECT p_thread, v_next + incoming.n - 1, p_message, incoming.part_index - 1, incoming.kind, incoming.agent_name,
           incoming.content, incoming.escaped, incoming.data, p_status, v_parent, p_replaces IS NULL, p_replaces IS NULL
      FROM incoming
    RETURNING seq, part_index
  )
  SELECT count(*), count(*) FILTER (WHERE inserted.part_index = 0), min(inserted.seq)
    INTO v_parts, v_messages, v_first FROM inserted;

  IF v_parts > 0 THEN
    UPDATE threads
       SET next_seq = next_seq + v_parts, message_count = message_count + v_messages, updated_at = now()
     WHERE id = p_thread;
  END IF;
  IF p_replaces IS NOT NULL THEN
    PERFORM threadline_select_version(p_thread, p_owner, p_message);
  END IF;
  RETURN QUERY SELECT m.seq, m.parent_message_id FROM messages m
   WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0;
END;
$$;
