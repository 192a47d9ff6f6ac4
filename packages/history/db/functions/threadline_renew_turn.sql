-- A running turn's lease, renewed for p_lease_ms more, under the runner key
-- its process holds now (null while its connection is down: the lease alone
-- then tells whether it runs). Returns whether a Stop was asked for this
-- turn; no row when the turn is no longer this one or no longer running.
CREATE OR REPLACE FUNCTION threadline_renew_turn(p_owner text, p_message text, p_turn text, p_lease_ms float8, p_runner bigint)
RETURNS TABLE (stop_requested boolean)
LANGUAGE sql AS $$
  UPDATE turns SET lease_until = now() + make_interval(secs => p_lease_ms / 1000), runner = p_runner, updated_at = now()
   WHERE owner = p_owner AND message_id = p_message AND turn_id = p_turn AND status = 'running'
  RETURNING coalesce(stop_requested_turn = turn_id, false)
$$;
