-- Selects version p_message: it and its ancestors become their parents'
-- choices, the path leaves whatever it held below the deepest ancestor they
-- share with it, and it now runs through p_message and on down through the
-- versions chosen beneath it (the choices made there before). Any message of
-- the thread can be selected. Returns true when done (also when it was on
-- the path already); no row when the message is not in the owner's thread.
CREATE OR REPLACE FUNCTION threadline_select_version(p_thread uuid, p_owner text, p_message text)
RETURNS TABLE (selected boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_active boolean;
  v_chain text[];
  v_keep bigint;
BEGIN
  PERFORM 1 FROM threads t WHERE t.id = p_thread AND t.owner = p_owner FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT m.active INTO v_active FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF v_active THEN
    RETURN QUERY SELECT true;
    RETURN;
  END IF;

  -- p_message and its ancestors; the deepest of them still on the path (the
  -- active ancestors are a start of the path, as every path starts at a root).
  WITH RECURSIVE up AS (
    SELECT m.message_id, m.parent_message_id, m.seq, m.active FROM messages m
     WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0
    UNION ALL
    SELECT m.message_id, m.parent_message_id, m.seq, m.active FROM messages m JOIN up ON m.message_id = up.parent_message_id
     WHERE m.thread_id = p_thread AND m.part_index = 0
  )
  SELECT array_agg(up.message_id), coalesce(max(up.seq) FILTER (WHERE up.active), 0) INTO v_chain, v_keep FROM up;

  -- At each level above p_message (and among first messages) the chain's
  -- message is the choice; below p_message the choices stay as they were.
  UPDATE messages m SET chosen = (m.message_id = ANY (v_chain))
   WHERE m.thread_id = p_thread
     AND (m.parent_message_id IS NULL OR (m.parent_message_id = ANY (v_chain) AND m.parent_message_id <> p_message))
     AND m.chosen <> (m.message_id = ANY (v_chain));

  UPDATE messages m SET active = false WHERE m.thread_id = p_thread AND m.active AND m.seq > v_keep;

  WITH RECURSIVE down AS (
    SELECT p_message AS message_id
    UNION ALL
    SELECT c.message_id FROM messages c JOIN down ON c.parent_message_id = down.message_id
     WHERE c.thread_id = p_thread AND c.part_index = 0 AND c.chosen
  )
  UPDATE messages m SET active = true
   WHERE m.thread_id = p_thread AND NOT m.active
     AND (m.message_id = ANY (v_chain) OR m.message_id IN (SELECT down.message_id FROM down));

  PERFORM threadline_recount(p_thread);
  RETURN QUERY SELECT true;
END;
$$;
