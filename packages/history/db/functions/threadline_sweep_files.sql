-- Removes uploads never sent: files no message names, uploaded (last) more
-- than p_after ago. At most p_limit at a time, each taken by one sweeper
-- (SKIP LOCKED), so every server may sweep. The number removed.
CREATE OR REPLACE FUNCTION threadline_sweep_files(p_after interval, p_limit integer) RETURNS integer
LANGUAGE sql AS $$
  WITH unsent AS (
    SELECT f.id FROM files f
     WHERE f.uploaded_at < now() - p_after
       AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.kind = 'file' AND m.data->>'fileId' = f.id::text)
     ORDER BY f.uploaded_at
     LIMIT p_limit
       FOR UPDATE SKIP LOCKED
  ), gone AS (
    DELETE FROM files f USING unsent WHERE f.id = unsent.id RETURNING f.id
  )
  SELECT count(*)::integer FROM gone;
$$;
