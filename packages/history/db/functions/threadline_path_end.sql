-- The last message of the thread's active path (null for an empty path): what a new message follows.
CREATE OR REPLACE FUNCTION threadline_path_end(p_thread uuid) RETURNS text
  LANGUAGE sql STABLE
  AS $$ SELECT m.message_id FROM messages m WHERE m.thread_id = p_thread AND m.active ORDER BY m.seq DESC LIMIT 1 $$;
