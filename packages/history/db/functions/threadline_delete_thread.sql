-- Deletes an owner's thread: its messages and every row that hangs off it go
-- with it (ON DELETE CASCADE). What a wing keeps apart from the thread (an
-- owner's files) its own hook removes first, in the same transaction
-- (lib/threads/repository.ts). True when there was such a thread.
CREATE OR REPLACE FUNCTION threadline_delete_thread(p_thread uuid, p_owner text) RETURNS boolean
LANGUAGE sql AS $$
  WITH gone AS (
    DELETE FROM threads WHERE id = p_thread AND owner = p_owner RETURNING id
  )
  SELECT EXISTS (SELECT 1 FROM gone);
$$;
