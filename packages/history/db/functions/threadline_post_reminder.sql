-- Posts a due reminder into its thread, once: the assistant's "Reminder: <text>" at
-- the end of the thread's path, in the statement that marks the reminder
-- posted. Not while a turn runs in the thread or a reply waits for the
-- user's approval (the path's end is theirs): 'busy', and it is posted on a
-- later look. 'gone': cancelled, posted already, or its thread deleted;
-- 'early': not due yet. The caller holds the reminder's row lock or takes it.
CREATE OR REPLACE FUNCTION threadline_post_reminder(p_id uuid)
RETURNS TABLE (outcome text, thread_id uuid, owner text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  r reminders%ROWTYPE;
  v_next bigint;
  v_parent text;
  v_message text := gen_random_uuid()::text;
BEGIN
  SELECT * INTO r FROM reminders x WHERE x.id = p_id FOR UPDATE;
  IF NOT FOUND OR r.status <> 'scheduled' THEN
    RETURN QUERY SELECT 'gone', r.thread_id, r.owner;
    RETURN;
  END IF;
  IF r.due_at > now() THEN
    RETURN QUERY SELECT 'early', r.thread_id, r.owner;
    RETURN;
  END IF;
  SELECT t.next_seq INTO v_next FROM threads t WHERE t.id = r.thread_id FOR UPDATE;
  IF EXISTS (SELECT 1 FROM turns tu WHERE tu.thread_id = r.thread_id AND threadline_turn_running(tu))
     OR EXISTS (SELECT 1 FROM messages m WHERE m.thread_id = r.thread_id AND m.status = 'waiting' AND m.part_index = 0) THEN
    RETURN QUERY SELECT 'busy', r.thread_id, r.owner;
    RETURN;
  END IF;
  v_parent := threadline_path_end(r.thread_id);
  INSERT INTO messages (thread_id, seq, message_id, part_index, kind, agent_name, content, content_escaped, data, status,
                        parent_message_id, chosen, active)
  VALUES (r.thread_id, v_next, v_message, 0, 'assistant', NULL, 'Reminder: ' || r.text, false, jsonb_build_object('reminder', r.id::text),
          'complete', v_parent, true, true);
  UPDATE threads SET next_seq = next_seq + 1, message_count = message_count + 1, updated_at = now() WHERE id = r.thread_id;
  UPDATE reminders SET status = 'posted', settled_at = now(), message_id = v_message WHERE id = r.id;
  -- The owner's pages, on every server, learn of the new reply (their sidebars mark it new).
  PERFORM pg_notify('threadline_threads', json_build_object('owner', r.owner, 'threadId', r.thread_id)::text);
  RETURN QUERY SELECT 'posted', r.thread_id, r.owner;
END;
$$;
