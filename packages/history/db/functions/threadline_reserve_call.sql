-- Reserves a model call on its owner's bill before it is made: its input
-- tokens (counted by the caller) and its output cap, at p_cost dollars (null:
-- the model has no price). Refused, and nothing written, when the call would
-- take the owner past the budget that binds them (threadline_budget_status),
-- or when that budget is in dollars and the model has no price. An owner's
-- reservations and settlements take turns on an advisory lock, so however
-- many servers reserve at once, the reserved and spent never pass a budget.
-- The same p_id twice reserves once.
CREATE OR REPLACE FUNCTION threadline_reserve_call(
  p_id uuid, p_owner text, p_unknown_is_guest boolean, p_now timestamptz, p_tz text, p_default jsonb, p_guests jsonb,
  p_thread uuid, p_purpose text, p_agent text, p_model text, p_input bigint, p_output bigint, p_cost numeric
)
RETURNS TABLE (refused text, scope text, amount numeric, unit text, period text, spent_usd numeric, spent_tokens bigint, resets_at timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
  b record;
  v_day date := (p_now AT TIME ZONE p_tz)::date;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('threadline:spend:' || p_owner, 0));
  SELECT * INTO b FROM threadline_budget_status(p_owner, p_unknown_is_guest, p_now, p_tz, p_default, p_guests);
  IF NOT EXISTS (SELECT 1 FROM model_calls c WHERE c.id = p_id) THEN
    IF b.scope IS NOT NULL AND b.unit = 'usd' AND p_cost IS NULL THEN
      RETURN QUERY SELECT 'unpriced'::text, b.scope, b.amount, b.unit, b.period, b.spent_usd, b.spent_tokens, b.resets_at;
      RETURN;
    END IF;
    IF b.scope IS NOT NULL AND (
         (b.unit = 'usd' AND b.spent_usd + p_cost > b.amount) OR
         (b.unit = 'tokens' AND b.spent_tokens + p_input + p_output > b.amount)) THEN
      RETURN QUERY SELECT 'exceeded'::text, b.scope, b.amount, b.unit, b.period, b.spent_usd, b.spent_tokens, b.resets_at;
      RETURN;
    END IF;
    INSERT INTO model_calls (id, owner, thread_id, purpose, agent, model, day, state, input_tokens, output_tokens, cost, created_at)
    VALUES (p_id, p_owner, p_thread, p_purpose, p_agent, p_model, v_day, 'reserved', p_input, p_output, p_cost, p_now);
    INSERT INTO spend_days AS s (owner, day, model, calls, input_tokens, output_tokens, cost)
    VALUES (p_owner, v_day, p_model, 1, p_input, p_output, p_cost)
    ON CONFLICT (owner, day, model) DO UPDATE
      SET calls = s.calls + 1, input_tokens = s.input_tokens + p_input, output_tokens = s.output_tokens + p_output,
          cost = CASE WHEN s.cost IS NULL AND p_cost IS NULL THEN NULL ELSE coalesce(s.cost, 0) + coalesce(p_cost, 0) END;
    b.spent_usd := b.spent_usd + coalesce(p_cost, 0);
    b.spent_tokens := b.spent_tokens + p_input + p_output;
  END IF;
  RETURN QUERY SELECT NULL::text, b.scope, b.amount, b.unit, b.period, b.spent_usd, b.spent_tokens, b.resets_at;
END
$$;
