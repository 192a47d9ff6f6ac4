-- Up Migration
-- Budgets (lib/budgets/): what each person, group and guest may spend on
-- model calls in a period, and the bill every call is counted on.
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

-- Groups of people an admin sets one budget for.
CREATE TABLE budget_groups (
  id         uuid PRIMARY KEY,
  name       text NOT NULL UNIQUE CHECK (char_length(name) BETWEEN 1 AND 100),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Who is in which group: put there by an admin, or by their identity
-- provider's groups claim at sign-in (from_claim: the next sign-in may take it away).
CREATE TABLE budget_group_members (
  group_id   uuid NOT NULL REFERENCES budget_groups (id) ON DELETE CASCADE,
  person     text NOT NULL CHECK (char_length(person) <= 200),
  from_claim boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, person)
);
CREATE INDEX budget_group_members_person_idx ON budget_group_members (person);

-- Every model call that was asked of a provider, the owner's bill: reserved
-- before the call (its input counted and its output cap), settled to what
-- the provider reported after it. A call never settled (its server died) is
-- counted at its reservation. Kept when the thread is deleted: it was spent.
CREATE TABLE model_calls (
  id               uuid PRIMARY KEY,
  owner            text NOT NULL,
  thread_id        uuid,
  purpose          text NOT NULL CHECK (purpose IN ('answer', 'sub-agent', 'title', 'summary', 'memory')),
  agent            text CHECK (char_length(agent) <= 64),
  model            text NOT NULL CHECK (char_length(model) <= 300),
  -- The operator's day it was reserved on: its spend counts there.
  day              date NOT NULL,
  -- reserved: not settled yet; settled: as the provider reported; estimated:
  -- cut off before the provider said, counted from the request and what came back.
  state            text NOT NULL CHECK (state IN ('reserved', 'settled', 'estimated')),
  -- What was reserved: the input as counted here, and the output the call was allowed.
  reserved_input   bigint NOT NULL CHECK (reserved_input >= 0),
  reserved_output  bigint NOT NULL CHECK (reserved_output >= 0),
  -- What it spent: its reservation until it is settled.
  input_tokens     bigint NOT NULL CHECK (input_tokens >= 0),
  output_tokens    bigint NOT NULL CHECK (output_tokens >= 0),
  cached_tokens    bigint NOT NULL DEFAULT 0 CHECK (cached_tokens >= 0),
  reasoning_tokens bigint NOT NULL DEFAULT 0 CHECK (reasoning_tokens >= 0),
  -- US dollars; null: the model has no price.
  cost             numeric(20, 9) CHECK (cost >= 0),
  created_at       timestamptz NOT NULL DEFAULT now(),
  settled_at       timestamptz
);
CREATE INDEX model_calls_owner_idx ON model_calls (owner, created_at DESC);

-- The bill summed by owner, day and model, kept with every reservation and
-- settlement: what a budget check and the admin's spend read (a period is at
-- most 31 of these rows an owner and model, however many calls it held).
CREATE TABLE spend_days (
  owner         text NOT NULL,
  day           date NOT NULL,
  model         text NOT NULL,
  calls         bigint NOT NULL DEFAULT 0,
  input_tokens  bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  -- null while none of these calls had a price.
  cost          numeric(20, 9),
  -- Turns the budget refused before they started.
  refused       bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (owner, day, model)
);
CREATE INDEX spend_days_day_idx ON spend_days (day) INCLUDE (owner, model, calls, input_tokens, output_tokens, cost, refused);

-- A reply may hold the server's notice where the model did not write (its budget ran out).
ALTER TABLE messages DROP CONSTRAINT messages_kind_check;
ALTER TABLE messages ADD CONSTRAINT messages_kind_check
  CHECK (kind IN ('user', 'assistant', 'tool_call', 'tool_result', 'reasoning', 'handoff', 'system_event', 'file', 'notice'));

-- Down Migration
DELETE FROM messages WHERE kind = 'notice';
ALTER TABLE messages DROP CONSTRAINT messages_kind_check;
ALTER TABLE messages ADD CONSTRAINT messages_kind_check
  CHECK (kind IN ('user', 'assistant', 'tool_call', 'tool_result', 'reasoning', 'handoff', 'system_event', 'file'));
DROP TABLE spend_days;
DROP TABLE model_calls;
DROP TABLE budget_group_members;
DROP TABLE budget_groups;
DROP TABLE budgets;
