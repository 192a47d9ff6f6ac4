-- One turn's rows, the owner's only: the user's message and its reply, from
-- the message up to the next user message, found by the index of user
-- messages. A message edited away since (off the path) gets the reply chosen
-- beneath it: what it was answered with. Summaries are left out.
CREATE OR REPLACE FUNCTION threadline_reply_to(p_thread uuid, p_owner text, p_message text) RETURNS SETOF messages
LANGUAGE sql STABLE AS $$
  WITH asked AS (
    SELECT m.seq, m.active FROM messages m JOIN threads t ON t.id = m.thread_id
     WHERE m.thread_id = p_thread AND t.owner = p_owner AND m.message_id = p_message AND m.part_index = 0 AND m.kind = 'user'
  ), next AS (
    SELECT min(u.seq) AS seq FROM messages u, asked WHERE u.thread_id = p_thread AND u.kind = 'user' AND u.active AND u.seq > asked.seq
  ), chosen AS (
    SELECT c.message_id FROM messages c, asked
     WHERE NOT asked.active AND c.thread_id = p_thread AND c.parent_message_id = p_message AND c.part_index = 0 AND c.chosen
       AND c.kind NOT IN ('user', 'system_event')
  )
  SELECT m.* FROM messages m, asked, next
   WHERE m.thread_id = p_thread AND m.kind <> 'system_event' AND (
           (asked.active AND m.active AND m.seq >= asked.seq AND (next.seq IS NULL OR m.seq < next.seq))
        OR (NOT asked.active AND (m.message_id = p_message OR m.message_id IN (SELECT chosen.message_id FROM chosen))))
$$;
