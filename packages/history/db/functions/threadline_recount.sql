-- The thread's counters, from its active path: the user and assistant
-- messages on it, and its latest summary (null when the path holds none).
CREATE OR REPLACE FUNCTION threadline_recount(p_thread uuid) RETURNS void
LANGUAGE sql AS $$
  UPDATE threads t
     SET message_count = (SELECT count(*) FROM messages m
                           WHERE m.thread_id = p_thread AND m.active AND m.part_index = 0 AND m.kind <> 'system_event'),
         summary_seq = (SELECT max(m.seq) FROM messages m
                         WHERE m.thread_id = p_thread AND m.active AND m.kind = 'system_event')
   WHERE t.id = p_thread
$$;
