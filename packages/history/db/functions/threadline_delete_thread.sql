-- Deletes an owner's thread (its messages and everything of theirs go with
-- it, ON DELETE CASCADE) and the files it named that no other thread names,
-- in one statement. A file uploaded again after the thread last named it
-- stays: it waits to be sent in another message (threadline_sweep_files
-- removes it a day later if it never is). True when there was such a thread.
CREATE OR REPLACE FUNCTION threadline_delete_thread(p_thread uuid, p_owner text) RETURNS boolean
LANGUAGE sql AS $$
  WITH named AS (
    SELECT m.data->>'fileId' AS file_id, max(m.created_at) AS last_named
      FROM messages m JOIN threads t ON t.id = m.thread_id
     WHERE m.thread_id = p_thread AND t.owner = p_owner AND m.kind = 'file'
     GROUP BY 1
  ), gone AS (
    DELETE FROM threads WHERE id = p_thread AND owner = p_owner RETURNING id
  ), files_gone AS (
    -- The statement sees the messages as they were before it: the thread's own are left out by hand.
    DELETE FROM files f USING named
     WHERE f.id::text = named.file_id AND f.owner = p_owner AND f.uploaded_at <= named.last_named
       AND EXISTS (SELECT 1 FROM gone)
       AND NOT EXISTS (SELECT 1 FROM messages o WHERE o.kind = 'file' AND o.data->>'fileId' = named.file_id AND o.thread_id <> p_thread)
    RETURNING f.id
  )
  SELECT EXISTS (SELECT 1 FROM gone) FROM (SELECT count(*) FROM files_gone) AS done;
$$;
