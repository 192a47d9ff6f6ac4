-- Up Migration

-- Versions as a tree. Regenerating a reply or editing a user message adds a
-- sibling instead of replacing anything, so every message knows the message
-- it follows (parent_message_id; null for a first message, and a thread may
-- have several first messages once the first one is edited). Per message, on
-- every one of its part rows:
--   chosen: it is the selected one among its siblings. It stays set when the
--           user switches to another version higher up, so that coming back
--           there restores the choice made below it.
--   active: it is on the thread's active path (it is chosen, and so is every
--           ancestor). Materialized so that every read stays one index range.
--
-- The invariant that keeps every existing read working: a child always has a
-- larger seq than its parent (a message is stored at next_seq, after its
-- parent), and the active messages form one path from a first message down.
-- So the active path is exactly the active rows in seq order, and a thread's
-- reads (get and its windows, pages, the flat history, the timeline, search,
-- a duplicate's reply) are today's reads with "and active" added. seq stays
-- unique per thread and is never reused; next_seq only grows.
--
-- A new message (the user's, a reply, a summary) follows the end of the
-- active path, is chosen and active; the end is read after the thread's row
-- lock is taken, so two writers of one thread never take the same parent.
-- threads.message_count counts the active path's user and assistant messages
-- and threads.summary_seq is its latest summary: both are recounted when the
-- path changes (a summary that left the path no longer stands for it).
--
-- Every existing row becomes one straight active path: each message follows
-- the one before it by seq.
ALTER TABLE messages
  ADD COLUMN parent_message_id text,
  ADD COLUMN chosen boolean NOT NULL DEFAULT true,
  ADD COLUMN active boolean NOT NULL DEFAULT true;

WITH firsts AS (
  SELECT f.thread_id, f.message_id, lag(f.message_id) OVER (PARTITION BY f.thread_id ORDER BY f.seq) AS parent
    FROM messages f WHERE f.part_index = 0
)
UPDATE messages m SET parent_message_id = firsts.parent
  FROM firsts
 WHERE m.thread_id = firsts.thread_id AND m.message_id = firsts.message_id AND firsts.parent IS NOT NULL;

-- The active path in order, and read backwards for a page or a window, costs
-- the same however many versions lie beside it.
CREATE INDEX messages_active_idx ON messages (thread_id, seq) WHERE active;
DROP INDEX messages_user_turns_idx;
CREATE INDEX messages_user_turns_idx ON messages (thread_id, seq DESC) WHERE kind = 'user' AND active;
DROP INDEX messages_text_search_idx;
CREATE INDEX messages_text_search_idx ON messages USING gin (threadline_search_vector(content))
  WHERE kind IN ('user', 'assistant') AND active;
-- A message's versions: the children of its parent, in the order they were written.
CREATE INDEX messages_children_idx ON messages (thread_id, parent_message_id, seq) WHERE part_index = 0;

-- The last message of the thread's active path (null for an empty path): what a new message follows.
CREATE FUNCTION threadline_path_end(p_thread uuid) RETURNS text
  LANGUAGE sql STABLE
  AS $$ SELECT m.message_id FROM messages m WHERE m.thread_id = p_thread AND m.active ORDER BY m.seq DESC LIMIT 1 $$;

-- The thread's counters, from its active path: the user and assistant
-- messages on it, and its latest summary (null when the path holds none).
CREATE FUNCTION threadline_recount(p_thread uuid) RETURNS void
LANGUAGE sql AS $$
  UPDATE threads t
     SET message_count = (SELECT count(*) FROM messages m
                           WHERE m.thread_id = p_thread AND m.active AND m.part_index = 0 AND m.kind <> 'system_event'),
         summary_seq = (SELECT max(m.seq) FROM messages m
                         WHERE m.thread_id = p_thread AND m.active AND m.kind = 'system_event')
   WHERE t.id = p_thread
$$;

-- The user's message, stored once (see 1733356800000_turn-rules.sql), now
-- following the end of the active path.
CREATE OR REPLACE FUNCTION threadline_append_user_message(
  p_thread uuid, p_owner text, p_message text, p_turn text, p_content text, p_escaped boolean, p_title text
) RETURNS TABLE (seq bigint, turn_id text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_next bigint;
  v_seq bigint;
  v_turn text;
BEGIN
  SELECT t.next_seq INTO v_next FROM threads t WHERE t.id = p_thread AND t.owner = p_owner FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT m.seq, m.turn_id INTO v_seq, v_turn
    FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0;
  IF FOUND THEN
    RETURN QUERY SELECT v_seq, v_turn;
    RETURN;
  END IF;
  INSERT INTO messages (thread_id, seq, message_id, kind, content, content_escaped, turn_id, parent_message_id)
  VALUES (p_thread, v_next, p_message, 'user', p_content, p_escaped, p_turn, threadline_path_end(p_thread));
  UPDATE threads
     SET next_seq = next_seq + 1, message_count = message_count + 1, updated_at = now(), title = coalesce(title, p_title)
   WHERE id = p_thread;
  RETURN QUERY SELECT v_next, p_turn;
END;
$$;

-- One run's reply, every part of it, in one transaction, at consecutive seqs
-- after the end of the active path. Parts already stored (a retried step whose
-- first try committed) are skipped; a reply stored before keeps its parent.
-- With a turn (p_turn_message, p_turn), that turn is done: a resend of its
-- message gets this reply. Returns the reply's first seq; no row when the
-- thread is not the owner's.
CREATE FUNCTION threadline_append_reply(
  p_thread uuid, p_owner text, p_message text,
  p_kinds text[], p_agents text[], p_contents text[], p_escaped boolean[], p_data jsonb[], p_status text,
  p_turn_message text, p_turn text
) RETURNS TABLE (first_seq bigint)
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
  IF NOT FOUND THEN
    v_parent := threadline_path_end(p_thread);
  END IF;

  WITH incoming AS (
    SELECT r.*, row_number() OVER (ORDER BY r.part_index) AS n
      FROM unnest(p_kinds, p_agents, p_contents, p_escaped, p_data)
             WITH ORDINALITY AS r(kind, agent_name, content, escaped, data, part_index)
     WHERE NOT EXISTS (
       SELECT 1 FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = r.part_index - 1)
  ), inserted AS (
    INSERT INTO messages (thread_id, seq, message_id, part_index, kind, agent_name, content, content_escaped, data, status, parent_message_id)
    SELECT p_thread, v_next + incoming.n - 1, p_message, incoming.part_index - 1, incoming.kind, incoming.agent_name,
           incoming.content, incoming.escaped, incoming.data, p_status, v_parent
      FROM incoming
    RETURNING seq, part_index
  )
  SELECT count(*), count(*) FILTER (WHERE inserted.part_index = 0), min(inserted.seq)
    INTO v_parts, v_messages, v_first FROM inserted;

  IF v_parts = 0 THEN
    RETURN QUERY SELECT m.seq FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0;
    RETURN;
  END IF;
  UPDATE threads
     SET next_seq = next_seq + v_parts, message_count = message_count + v_messages, updated_at = now()
   WHERE id = p_thread;
  RETURN QUERY SELECT v_first;
END;
$$;

-- A compaction summary, stored as the thread's latest only if the latest is
-- still the one it was written after (p_after: its seq, or null for none), so
-- two compactions of one thread never both land, and only if the last message
-- it stands for (the row at its throughSeq) is still on the active path: a
-- compaction planned before the path changed (a regenerate or an edit while
-- it summarized) would stand for messages the path no longer holds. When that
-- row is active so is every message before it on its path, as parents never
-- change. It follows the end of the active path. Neither the message count
-- nor the activity time moves: a summary is not something anyone said. No
-- row when nothing was stored.
CREATE FUNCTION threadline_append_summary(
  p_thread uuid, p_owner text, p_after bigint, p_message text, p_kind text, p_content text, p_escaped boolean, p_data jsonb
) RETURNS TABLE (seq bigint)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_next bigint;
BEGIN
  -- A compaction that waited for the row lock finds the summary the first one
  -- stored, no longer matches p_after, and stores nothing.
  SELECT t.next_seq INTO v_next FROM threads t
   WHERE t.id = p_thread AND t.owner = p_owner AND t.summary_seq IS NOT DISTINCT FROM p_after FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF p_data->>'throughSeq' IS NOT NULL AND NOT EXISTS (
       SELECT 1 FROM messages m WHERE m.thread_id = p_thread AND m.seq = (p_data->>'throughSeq')::bigint AND m.active) THEN
    RETURN;
  END IF;
  INSERT INTO messages (thread_id, seq, message_id, part_index, kind, content, content_escaped, data, parent_message_id)
  VALUES (p_thread, v_next, p_message, 0, p_kind, p_content, p_escaped, p_data, threadline_path_end(p_thread));
  UPDATE threads SET next_seq = next_seq + 1, summary_seq = v_next WHERE id = p_thread;
  RETURN QUERY SELECT v_next;
END;
$$;

-- The start of a regenerate or an edit: the active path is cut just above
-- message p_message, so that the next message stored follows its parent and
-- becomes its sibling. p_message and everything after it leave the path and
-- p_message is no longer its parent's choice; nothing is deleted, and what
-- was chosen below it stays chosen (selecting it again brings that back).
-- Only a message on the active path can be branched at: of two branches at
-- one message, taken at once, the first cuts the path and the second finds
-- the message off it and changes nothing (`branched` false), so a double
-- regenerate stores one new version. Returns the parent the new version
-- follows; no row when the message is not in the owner's thread.
CREATE FUNCTION threadline_branch(p_thread uuid, p_owner text, p_message text)
RETURNS TABLE (branched boolean, parent_message_id text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_seq bigint;
  v_active boolean;
  v_parent text;
BEGIN
  PERFORM 1 FROM threads t WHERE t.id = p_thread AND t.owner = p_owner FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT m.seq, m.active, m.parent_message_id INTO v_seq, v_active, v_parent
    FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF NOT v_active THEN
    RETURN QUERY SELECT false, v_parent;
    RETURN;
  END IF;
  UPDATE messages m SET active = false WHERE m.thread_id = p_thread AND m.active AND m.seq >= v_seq;
  UPDATE messages m SET chosen = false WHERE m.thread_id = p_thread AND m.message_id = p_message;
  PERFORM threadline_recount(p_thread);
  RETURN QUERY SELECT true, v_parent;
END;
$$;

-- Selects version p_message: it and its ancestors become their parents'
-- choices, the path leaves whatever it held below the deepest ancestor they
-- share with it, and it now runs through p_message and on down through the
-- versions chosen beneath it (the choices made there before). Any message of
-- the thread can be selected. Returns true when done (also when it was on
-- the path already); no row when the message is not in the owner's thread.
CREATE FUNCTION threadline_select_version(p_thread uuid, p_owner text, p_message text)
RETURNS TABLE (selected boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_active boolean;
  v_chain text[];
  v_keep bigint;
BEGIN
  PERFORM 1 FROM threads t WHERE t.id = p_thread AND t.owner = p_owner FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT m.active INTO v_active FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF v_active THEN
    RETURN QUERY SELECT true;
    RETURN;
  END IF;

  -- p_message and its ancestors; the deepest of them still on the path (the
  -- active ancestors are a start of the path, as every path starts at a root).
  WITH RECURSIVE up AS (
    SELECT m.message_id, m.parent_message_id, m.seq, m.active FROM messages m
     WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0
    UNION ALL
    SELECT m.message_id, m.parent_message_id, m.seq, m.active FROM messages m JOIN up ON m.message_id = up.parent_message_id
     WHERE m.thread_id = p_thread AND m.part_index = 0
  )
  SELECT array_agg(up.message_id), coalesce(max(up.seq) FILTER (WHERE up.active), 0) INTO v_chain, v_keep FROM up;

  -- At each level above p_message (and among first messages) the chain's
  -- message is the choice; below p_message the choices stay as they were.
  UPDATE messages m SET chosen = (m.message_id = ANY (v_chain))
   WHERE m.thread_id = p_thread
     AND (m.parent_message_id IS NULL OR (m.parent_message_id = ANY (v_chain) AND m.parent_message_id <> p_message))
     AND m.chosen <> (m.message_id = ANY (v_chain));

  UPDATE messages m SET active = false WHERE m.thread_id = p_thread AND m.active AND m.seq > v_keep;

  WITH RECURSIVE down AS (
    SELECT p_message AS message_id
    UNION ALL
    SELECT c.message_id FROM messages c JOIN down ON c.parent_message_id = down.message_id
     WHERE c.thread_id = p_thread AND c.part_index = 0 AND c.chosen
  )
  UPDATE messages m SET active = true
   WHERE m.thread_id = p_thread AND NOT m.active
     AND (m.message_id = ANY (v_chain) OR m.message_id IN (SELECT down.message_id FROM down));

  PERFORM threadline_recount(p_thread);
  RETURN QUERY SELECT true;
END;
$$;
