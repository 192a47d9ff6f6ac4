-- Writes a document's next version, under the document's row lock, so that
-- writers of one document take turns and each sees what the one before it
-- stored (every statement here reads anew once the lock is held):
--  * an agent's call (p_tool_call set, p_message its reply): the same call
--    again finds the version it wrote ('found');
--  * the owner's edit (p_based_on set): written over the latest version on
--    the thread's active path, which must be p_based_on, else 'changed' with
--    the latest in `latest`: of several edits of one version exactly one is
--    stored. It belongs with the reply that version belongs with.
-- 'too_large': the document's versions together would hold more than
-- p_max_bytes bytes of text (`stored`: what they hold now). 'missing': no such
-- document in the owner's thread, or none of its versions on the path.
-- The version's number is the document's next, whichever path the earlier
-- ones are on.
CREATE OR REPLACE FUNCTION threadline_write_document(
  p_thread uuid, p_owner text, p_document uuid, p_content text, p_author text,
  p_message text, p_tool_call text, p_based_on integer, p_max_bytes bigint)
RETURNS TABLE (outcome text, version integer, latest integer, stored bigint)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_found integer;
  v_latest integer;
  v_message text := p_message;
  v_stored bigint;
  v_next integer;
BEGIN
  PERFORM 1 FROM documents d JOIN threads t ON t.id = d.thread_id
    WHERE d.id = p_document AND d.thread_id = p_thread AND t.owner = p_owner
    FOR UPDATE OF d;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'missing', NULL::integer, NULL::integer, NULL::bigint;
    RETURN;
  END IF;

  IF p_tool_call IS NOT NULL THEN
    SELECT x.version INTO v_found FROM document_versions x
      WHERE x.document_id = p_document AND x.message_id = p_message AND x.tool_call_id = p_tool_call;
    IF FOUND THEN
      RETURN QUERY SELECT 'found', v_found, NULL::integer, NULL::bigint;
      RETURN;
    END IF;
  END IF;

  IF p_based_on IS NOT NULL THEN
    SELECT x.version, x.message_id INTO v_latest, v_message FROM document_versions x
      WHERE x.document_id = p_document
        AND EXISTS (SELECT 1 FROM messages m
                     WHERE m.thread_id = p_thread AND m.message_id = x.message_id AND m.part_index = 0 AND m.active)
      ORDER BY x.version DESC LIMIT 1;
    IF v_latest IS NULL THEN
      RETURN QUERY SELECT 'missing', NULL::integer, NULL::integer, NULL::bigint;
      RETURN;
    END IF;
    IF v_latest <> p_based_on THEN
      RETURN QUERY SELECT 'changed', NULL::integer, v_latest, NULL::bigint;
      RETURN;
    END IF;
  END IF;

  -- octet_length reads a stored value's size from its header: the versions' text is not read.
  SELECT coalesce(sum(octet_length(x.content)), 0), coalesce(max(x.version), 0) INTO v_stored, v_next
    FROM document_versions x WHERE x.document_id = p_document;
  IF v_stored + octet_length(p_content) > p_max_bytes THEN
    RETURN QUERY SELECT 'too_large', NULL::integer, v_latest, v_stored;
    RETURN;
  END IF;
  v_next := v_next + 1;
  INSERT INTO document_versions (document_id, version, content, author, message_id, tool_call_id)
  VALUES (p_document, v_next, p_content, p_author, v_message, p_tool_call);
  RETURN QUERY SELECT 'written', v_next, v_latest, v_stored + octet_length(p_content);
END;
$$;
