-- The budget that binds p_owner now, and what they spent of it in its
-- period (no row: none binds them). The most specific wins: their own, else
-- the smallest of their groups' (by amount a day; dollars before tokens),
-- else the default (not for admins), the admin's row over the operator's
-- variable (p_default); a guest (an owner with no account, when
-- p_unknown_is_guest) has the guests' budget alone. Periods begin at
-- midnight, on Monday, on the 1st, in p_tz; spend_days holds each day's sums.
-- PL/pgSQL: each statement's plan is kept for the session, and every turn
-- and model call asks.
CREATE OR REPLACE FUNCTION threadline_budget_status(
  p_owner text, p_unknown_is_guest boolean, p_now timestamptz, p_tz text, p_default jsonb, p_guests jsonb
)
RETURNS TABLE (scope text, amount numeric, unit text, period text, spent_usd numeric, spent_tokens bigint, resets_at timestamptz)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_role text;
  v_guest boolean;
  v_scope text;
  v_amount numeric;
  v_unit text;
  v_period text;
  v_starts timestamp;
  v_usd numeric;
  v_tokens bigint;
BEGIN
  SELECT u.role INTO v_role FROM auth_users u WHERE u.id = p_owner;
  v_guest := NOT FOUND AND p_unknown_is_guest;
  IF v_guest THEN
    SELECT b.scope, b.amount, b.unit, b.period INTO v_scope, v_amount, v_unit, v_period FROM budgets b WHERE b.scope = 'guests';
    IF v_scope IS NULL AND p_guests IS NOT NULL THEN
      SELECT 'guests', (p_guests->>'amount')::numeric, p_guests->>'unit', p_guests->>'period' INTO v_scope, v_amount, v_unit, v_period;
    END IF;
  ELSE
    SELECT b.scope, b.amount, b.unit, b.period INTO v_scope, v_amount, v_unit, v_period FROM budgets b WHERE b.scope = 'person:' || p_owner;
    IF v_scope IS NULL THEN
      SELECT b.scope, b.amount, b.unit, b.period INTO v_scope, v_amount, v_unit, v_period
        FROM budget_group_members m JOIN budgets b ON b.scope = 'group:' || m.group_id
       WHERE m.person = p_owner
       ORDER BY (b.unit = 'usd') DESC, b.amount / CASE b.period WHEN 'day' THEN 1 WHEN 'week' THEN 7 ELSE 30 END, b.scope
       LIMIT 1;
    END IF;
    IF v_scope IS NULL AND v_role IS DISTINCT FROM 'admin' THEN
      SELECT b.scope, b.amount, b.unit, b.period INTO v_scope, v_amount, v_unit, v_period FROM budgets b WHERE b.scope = 'default';
      IF v_scope IS NULL AND p_default IS NOT NULL THEN
        SELECT 'default', (p_default->>'amount')::numeric, p_default->>'unit', p_default->>'period' INTO v_scope, v_amount, v_unit, v_period;
      END IF;
    END IF;
  END IF;
  IF v_scope IS NULL THEN RETURN; END IF;
  v_starts := date_trunc(v_period, p_now AT TIME ZONE p_tz);
  SELECT coalesce(sum(s.cost), 0), coalesce(sum(s.input_tokens + s.output_tokens), 0)::bigint INTO v_usd, v_tokens
    FROM spend_days s WHERE s.owner = p_owner AND s.day >= v_starts::date;
  RETURN QUERY SELECT v_scope, v_amount, v_unit, v_period, v_usd, v_tokens, (v_starts + ('1 ' || v_period)::interval) AT TIME ZONE p_tz;
END
$$;
