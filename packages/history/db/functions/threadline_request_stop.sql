-- Stop: the thread's running turn is told to stop (recorded, and announced to
-- every process). With none running, a reply that waits for the user's
-- approval is ended instead: its calls did not run because the user stopped
-- the reply (the words are denialText's, in packages/history/src/approvals.ts).
DROP FUNCTION IF EXISTS threadline_request_stop(uuid, text);
CREATE OR REPLACE FUNCTION threadline_request_stop(p_thread uuid, p_owner text) RETURNS TABLE (turn_id text, settled_reply text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_turn text;
  v_found boolean := false;
BEGIN
  -- Under the thread's lock first: a reply's continuation claims it under the
  -- same lock, so a Stop either finds the continuation running (and stops it)
  -- or settles the reply before it can be claimed; never neither.
  PERFORM 1 FROM threads t WHERE t.id = p_thread AND t.owner = p_owner FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  FOR v_turn IN
    UPDATE turns tu SET stop_requested_turn = tu.turn_id, updated_at = now()
     WHERE tu.thread_id = p_thread AND tu.owner = p_owner AND threadline_turn_running(tu)
    RETURNING tu.turn_id
  LOOP
    v_found := true;
    PERFORM pg_notify('threadline_stop', json_build_object('threadId', p_thread, 'turnId', v_turn)::text);
    RETURN QUERY SELECT v_turn, NULL::text;
  END LOOP;
  IF v_found THEN
    RETURN;
  END IF;
  -- Still under the lock, so no turn starts to go on with the reply meanwhile.
  RETURN QUERY SELECT NULL::text, s.message_id
    FROM threadline_settle_waiting(p_thread, 'stopped', 'The user stopped the reply before this ran.') s;
END;
$$;
