-- Up Migration
-- Its functions are in db/functions/, one file each (applied after the
-- migrations): threadline_append_reply, threadline_append_summary,
-- threadline_append_user_message, threadline_branch, threadline_path_end,
-- threadline_recount, threadline_select_version.

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
