-- The thread, created with where it came from or kept as it is (an upsert of
-- its id), never another owner's: no row for one.
CREATE OR REPLACE FUNCTION threadline_upsert_thread(p_thread uuid, p_owner text, p_source text, p_source_id text, p_source_metadata jsonb)
RETURNS TABLE (created boolean, message_count integer, summary_seq bigint, next_seq bigint)
LANGUAGE sql AS $$
  INSERT INTO threads AS t (id, owner, source, source_id, source_metadata) VALUES (p_thread, p_owner, p_source, p_source_id, p_source_metadata)
  ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id WHERE t.owner = EXCLUDED.owner
  RETURNING (t.xmax = 0), t.message_count, t.summary_seq, t.next_seq
$$;
