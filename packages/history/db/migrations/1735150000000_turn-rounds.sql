-- Up Migration
-- How many times a message's reply has gone on after the user's decisions
-- (threadline_claim_continuation counts them): past the operator's most, the
-- reply may not ask again, so one message buys a bounded number of model calls.
ALTER TABLE turns ADD COLUMN rounds integer NOT NULL DEFAULT 0;

-- Down Migration
ALTER TABLE turns DROP COLUMN rounds;
