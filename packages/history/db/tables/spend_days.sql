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
