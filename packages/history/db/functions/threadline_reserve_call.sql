-- Reserves a model call on its owner's bill before it is made: its input
-- tokens (counted by the caller) and as much output as the call may write,
-- which is the most the budget that binds the owner (threadline_budget_status)
-- still allows, up to p_output_cap; the caller asks the model for no more.
-- Refused, and nothing written, when that would be less than p_output_min,
-- or when the budget is in dollars and the model has no price (p_input_cost
-- null). An owner's reservations and settlements take turns on an advisory
-- lock, so however many servers reserve at once, what is reserved and spent
-- stays within the budget. The same p_id twice reserves once.
CREATE OR REPLACE FUNCTION threadline_reserve_call(
  p_id uuid, p_owner text, p_unknown_is_guest boolean, p_now timestamptz, p_tz text, p_default jsonb, p_guests jsonb,
  p_thread uuid, p_purpose text, p_agent text, p_model text,
  p_input bigint, p_output_cap bigint, p_output_min bigint, p_input_cost numeric, p_output_price numeric
)
RETURNS TABLE (refused text, output_tokens bigint, scope text, amount numeric, unit text, period text, spent_usd numeric, spent_tokens bigint, resets_at timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
  b record;
  v_day date := (p_now AT TIME ZONE p_tz)::date;
  v_output bigint := p_output_cap;
  v_cost numeric;
BEGIN
  -- A bill's row waits for no disk flush (the database's own crash may lose the last few; the app's never does).
  PERFORM set_config('synchronous_commit', 'off', true);
  PERFORM pg_advisory_xact_lock(hashtextextended('threadline:spend:' || p_owner, 0));
  SELECT * INTO b FROM threadline_budget_status(p_owner, p_unknown_is_guest, p_now, p_tz, p_default, p_guests);
  SELECT c.reserved_output INTO v_output FROM model_calls c WHERE c.id = p_id;
  IF FOUND THEN
    RETURN QUERY SELECT NULL::text, v_output, b.scope, b.amount, b.unit, b.period, b.spent_usd, b.spent_tokens, b.resets_at;
    RETURN;
  END IF;
  v_output := p_output_cap;
  IF b.scope IS NOT NULL THEN
    IF b.unit = 'usd' AND (p_input_cost IS NULL OR p_output_price IS NULL) THEN
      RETURN QUERY SELECT 'unpriced'::text, 0::bigint, b.scope, b.amount, b.unit, b.period, b.spent_usd, b.spent_tokens, b.resets_at;
      RETURN;
    END IF;
    IF b.unit = 'tokens' THEN
      v_output := least(p_output_cap, b.amount - b.spent_tokens - p_input);
    ELSIF p_output_price > 0 THEN
      v_output := least(p_output_cap, floor((b.amount - b.spent_usd - p_input_cost) / p_output_price));
    ELSIF b.amount - b.spent_usd - p_input_cost < 0 THEN
      v_output := -1;
    END IF;
    IF v_output < greatest(p_output_min, 0) OR v_output < 0 THEN
      RETURN QUERY SELECT 'exceeded'::text, 0::bigint, b.scope, b.amount, b.unit, b.period, b.spent_usd, b.spent_tokens, b.resets_at;
      RETURN;
    END IF;
  END IF;
  v_cost := p_input_cost + v_output * p_output_price;
  INSERT INTO model_calls (id, owner, thread_id, purpose, agent, model, day, state, reserved_input, reserved_output, input_tokens, output_tokens, cost, created_at)
  VALUES (p_id, p_owner, p_thread, p_purpose, p_agent, p_model, v_day, 'reserved', p_input, v_output, p_input, v_output, v_cost, p_now);
  INSERT INTO spend_days AS s (owner, day, model, calls, input_tokens, output_tokens, cost)
  VALUES (p_owner, v_day, p_model, 1, p_input, v_output, v_cost)
  ON CONFLICT (owner, day, model) DO UPDATE
    SET calls = s.calls + 1, input_tokens = s.input_tokens + p_input, output_tokens = s.output_tokens + v_output,
        cost = CASE WHEN s.cost IS NULL AND v_cost IS NULL THEN NULL ELSE coalesce(s.cost, 0) + coalesce(v_cost, 0) END;
  RETURN QUERY SELECT NULL::text, v_output, b.scope, b.amount, b.unit, b.period,
    b.spent_usd + coalesce(v_cost, 0), b.spent_tokens + p_input + v_output, b.resets_at;
END
$$;
