-- Whether a message of the thread is answered: it is on the active path and
-- an active reply follows it before the next user message. A regenerate that
-- failed leaves its message answered by the reply it meant to replace.
CREATE OR REPLACE FUNCTION threadline_answered(p_thread uuid, p_message text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT EXISTS (
    SELECT 1 FROM messages u JOIN messages r ON r.thread_id = u.thread_id AND r.active AND r.part_index = 0
     WHERE u.thread_id = p_thread AND u.message_id = p_message AND u.part_index = 0 AND u.active
       AND r.seq > u.seq AND r.kind NOT IN ('user', 'system_event')
       AND NOT EXISTS (SELECT 1 FROM messages x WHERE x.thread_id = u.thread_id AND x.active AND x.kind = 'user'
                          AND x.seq > u.seq AND x.seq < r.seq))
$$;
