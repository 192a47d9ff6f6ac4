-- After the last batch: the thread goes on after its last part, its
-- counters come from its active path, and its model is the one its latest
-- reply on that path names.
CREATE OR REPLACE FUNCTION threadline_import_finish(p_thread uuid) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE threads t
     SET next_seq = coalesce((SELECT max(m.seq) FROM messages m WHERE m.thread_id = p_thread), 0) + 1,
         model = (SELECT m.model FROM messages m WHERE m.thread_id = p_thread AND m.active AND m.model IS NOT NULL ORDER BY m.seq DESC LIMIT 1)
   WHERE t.id = p_thread;
  PERFORM threadline_recount(p_thread);
END;
$$;
