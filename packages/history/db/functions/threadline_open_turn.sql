DROP FUNCTION IF EXISTS threadline_open_turn(uuid, text, text, text, text, boolean, text, float8, bigint, text, text, jsonb);
DROP FUNCTION IF EXISTS threadline_open_turn(uuid, text, text, text, text, boolean, text, float8, bigint, text, text, jsonb, jsonb);
-- p_files: the files the message carries (threadline_append_user_message).
CREATE OR REPLACE FUNCTION threadline_open_turn(
  p_thread uuid, p_owner text, p_message text, p_turn text,
  p_content text, p_escaped boolean, p_title text, p_lease_ms float8, p_runner bigint,
  p_source text, p_source_id text, p_source_metadata jsonb, p_files jsonb
) RETURNS TABLE (
  thread_id uuid, created boolean, message_count integer, claimed boolean, running boolean, user_seq bigint, summary_seq bigint,
  user_parent text, busy boolean, settled_reply text
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_created boolean;
  v_count integer;
  v_summary bigint;
  v_thread uuid;
  v_claimed boolean;
  v_running boolean;
  v_busy boolean;
  v_seq bigint;
  v_settled text;
BEGIN
  SELECT u.created, u.message_count, u.summary_seq INTO v_created, v_count, v_summary
    FROM threadline_upsert_thread(p_thread, p_owner, p_source, p_source_id, p_source_metadata) u;
  IF NOT FOUND THEN
    RETURN;
  END IF;

  SELECT c.thread_id, c.claimed, c.running, c.busy INTO v_thread, v_claimed, v_running, v_busy
    FROM threadline_claim_turn(p_owner, p_message, p_thread, p_turn, p_lease_ms, p_runner) c;
  IF v_busy THEN
    RETURN QUERY SELECT p_thread, v_created, v_count, false, true, NULL::bigint, v_summary, NULL::text, true, NULL::text;
    RETURN;
  END IF;
  IF v_claimed IS NOT TRUE THEN
    RETURN QUERY SELECT v_thread, v_created, v_count, false, coalesce(v_running, false), NULL::bigint, v_summary, NULL::text, false, NULL::text;
    RETURN;
  END IF;

  -- A reply that waits for the user's approval is settled first: its calls
  -- did not run because the user moved on (the words are denialText's, in
  -- packages/history/src/approvals.ts; a test holds them equal).
  SELECT s.message_id INTO v_settled FROM threadline_settle_waiting(p_thread, 'moved_on', 'The user moved on') s;
  SELECT a.seq INTO v_seq
    FROM threadline_append_user_message(p_thread, p_owner, p_message, p_turn, p_content, p_escaped, p_title, p_files) a;
  RETURN QUERY SELECT p_thread, v_created, v_count, true, true, v_seq, v_summary,
    (SELECT m.parent_message_id FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0),
    false, v_settled;
END;
$$;
