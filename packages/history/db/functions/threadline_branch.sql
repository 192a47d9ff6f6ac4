-- The start of a regenerate or an edit: the active path is cut just above
-- message p_message, so that the next message stored follows its parent and
-- becomes its sibling. p_message and everything after it leave the path and
-- p_message is no longer its parent's choice; nothing is deleted, and what
-- was chosen below it stays chosen (selecting it again brings that back).
-- Only a message on the active path can be branched at: of two branches at
-- one message, taken at once, the first cuts the path and the second finds
-- the message off it and changes nothing (`branched` false), so a double
-- regenerate stores one new version. Returns the parent the new version
-- follows; no row when the message is not in the owner's thread.
CREATE OR REPLACE FUNCTION threadline_branch(p_thread uuid, p_owner text, p_message text)
RETURNS TABLE (branched boolean, parent_message_id text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_seq bigint;
  v_active boolean;
  v_parent text;
BEGIN
  PERFORM 1 FROM threads t WHERE t.id = p_thread AND t.owner = p_owner FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT m.seq, m.active, m.parent_message_id INTO v_seq, v_active, v_parent
    FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF NOT v_active THEN
    RETURN QUERY SELECT false, v_parent;
    RETURN;
  END IF;
  UPDATE messages m SET active = false WHERE m.thread_id = p_thread AND m.active AND m.seq >= v_seq;
  UPDATE messages m SET chosen = false WHERE m.thread_id = p_thread AND m.message_id = p_message;
  PERFORM threadline_recount(p_thread);
  RETURN QUERY SELECT true, v_parent;
END;
$$;
