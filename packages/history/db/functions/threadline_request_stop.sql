-- Stop, restated with the rule's new form.
CREATE OR REPLACE FUNCTION threadline_request_stop(p_thread uuid, p_owner text) RETURNS TABLE (turn_id text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_turn text;
BEGIN
  FOR v_turn IN
    UPDATE turns tu SET stop_requested_turn = tu.turn_id, updated_at = now()
     WHERE tu.thread_id = p_thread AND tu.owner = p_owner AND threadline_turn_running(tu)
    RETURNING tu.turn_id
  LOOP
    PERFORM pg_notify('threadline_stop', json_build_object('threadId', p_thread, 'turnId', v_turn)::text);
    RETURN QUERY SELECT v_turn;
  END LOOP;
END;
$$;
