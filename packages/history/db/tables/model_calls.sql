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
