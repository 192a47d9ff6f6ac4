-- The budget that binds p_owner now, and what they spent of it in its
-- period (no row: none binds them). The most specific wins: their own, else
-- the smallest of their groups' (by amount a day; dollars before tokens),
-- else the default (not for admins), the admin's row over the operator's
-- variable (p_default); a guest (an owner with no account, when
-- p_unknown_is_guest) has the guests' budget alone. Periods begin at
-- midnight, on Monday, on the 1st, in p_tz; spend_days holds each day's sums.
CREATE OR REPLACE FUNCTION threadline_budget_status(
  p_owner text, p_unknown_is_guest boolean, p_now timestamptz, p_tz text, p_default jsonb, p_guests jsonb
)
RETURNS TABLE (scope text, amount numeric, unit text, period text, spent_usd numeric, spent_tokens bigint, resets_at timestamptz)
LANGUAGE sql STABLE AS $$
  WITH who AS (
    SELECT u.role = 'admin' AS admin, u.id IS NULL AND p_unknown_is_guest AS guest
      FROM (SELECT 1) one LEFT JOIN auth_users u ON u.id = p_owner
  ),
  candidates AS (
    SELECT b.scope, b.amount, b.unit, b.period, 1 AS rank
      FROM budgets b, who WHERE NOT who.guest AND b.scope = 'person:' || p_owner
    UNION ALL
    (SELECT b.scope, b.amount, b.unit, b.period, 2
       FROM budget_group_members m JOIN budgets b ON b.scope = 'group:' || m.group_id, who
      WHERE NOT who.guest AND m.person = p_owner
      ORDER BY (b.unit = 'usd') DESC, b.amount / CASE b.period WHEN 'day' THEN 1 WHEN 'week' THEN 7 ELSE 30 END, b.scope
      LIMIT 1)
    UNION ALL
    SELECT b.scope, b.amount, b.unit, b.period, 3
      FROM budgets b, who WHERE NOT who.guest AND NOT coalesce(who.admin, false) AND b.scope = 'default'
    UNION ALL
    SELECT 'default', (p_default->>'amount')::numeric, p_default->>'unit', p_default->>'period', 4
      FROM who WHERE NOT who.guest AND NOT coalesce(who.admin, false) AND p_default IS NOT NULL
    UNION ALL
    SELECT b.scope, b.amount, b.unit, b.period, 3
      FROM budgets b, who WHERE who.guest AND b.scope = 'guests'
    UNION ALL
    SELECT 'guests', (p_guests->>'amount')::numeric, p_guests->>'unit', p_guests->>'period', 4
      FROM who WHERE who.guest AND p_guests IS NOT NULL
  ),
  binding AS (
    SELECT c.*, date_trunc(c.period, p_now AT TIME ZONE p_tz) AS starts
      FROM candidates c ORDER BY c.rank LIMIT 1
  )
  SELECT b.scope, b.amount, b.unit, b.period,
         coalesce((SELECT sum(s.cost) FROM spend_days s WHERE s.owner = p_owner AND s.day >= b.starts::date), 0),
         coalesce((SELECT sum(s.input_tokens + s.output_tokens) FROM spend_days s WHERE s.owner = p_owner AND s.day >= b.starts::date), 0)::bigint,
         (b.starts + ('1 ' || b.period)::interval) AT TIME ZONE p_tz
    FROM binding b
$$;
