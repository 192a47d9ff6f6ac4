-- A budget: how much one may spend in a period (lib/budgets/). `scope` says
-- whose: everyone (default), guests, a group's members (group:<id>) or one
-- person (person:<id>); the most specific one that applies wins.
CREATE TABLE budgets (
  scope      text PRIMARY KEY CHECK (scope ~ '^(default|guests|group:[0-9a-f-]{36}|person:.{1,200})$'),
  -- US dollars (priced by MODEL_PRICES) or tokens (input and output).
  amount     numeric(20, 6) NOT NULL CHECK (amount >= 0),
  unit       text NOT NULL CHECK (unit IN ('usd', 'tokens')),
  -- A day, a week (from Monday) or a month, in the operator's time zone.
  period     text NOT NULL CHECK (period IN ('day', 'week', 'month')),
  updated_at timestamptz NOT NULL DEFAULT now()
);
