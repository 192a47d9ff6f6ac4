-- Settles a reserved call to what it spent: the provider's count (exact), or
-- an estimate of a call cut off before the provider said. Its day's sums
-- move by the difference. A call settled already (a retry) is left as it is.
CREATE OR REPLACE FUNCTION threadline_settle_call(
  p_id uuid, p_input bigint, p_output bigint, p_cached bigint, p_reasoning bigint, p_cost numeric, p_exact boolean, p_now timestamptz
)
RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  c record;
BEGIN
  -- A bill's row waits for no disk flush (the database's own crash may lose the last few; the app's never does).
  PERFORM set_config('synchronous_commit', 'off', true);
  -- The owner's lock first (reservations read the days' sums under it), then the call, once.
  PERFORM pg_advisory_xact_lock(hashtextextended('threadline:spend:' || m.owner, 0)) FROM model_calls m WHERE m.id = p_id;
  UPDATE model_calls m
     SET state = CASE WHEN p_exact THEN 'settled' ELSE 'estimated' END, input_tokens = p_input, output_tokens = p_output,
         cached_tokens = p_cached, reasoning_tokens = p_reasoning, cost = p_cost, settled_at = p_now
    FROM (SELECT id, owner, day, model, input_tokens, output_tokens, cost FROM model_calls WHERE id = p_id AND state = 'reserved' FOR UPDATE) AS was
   WHERE m.id = was.id
  RETURNING was.owner, was.day, was.model, was.input_tokens, was.output_tokens, was.cost INTO c;
  IF NOT FOUND THEN RETURN false; END IF;
  UPDATE spend_days s
     SET input_tokens = s.input_tokens + p_input - c.input_tokens,
         output_tokens = s.output_tokens + p_output - c.output_tokens,
         cost = CASE WHEN s.cost IS NULL AND p_cost IS NULL THEN NULL ELSE coalesce(s.cost, 0) + coalesce(p_cost, 0) - coalesce(c.cost, 0) END
   WHERE s.owner = c.owner AND s.day = c.day AND s.model = c.model;
  RETURN true;
END
$$;
