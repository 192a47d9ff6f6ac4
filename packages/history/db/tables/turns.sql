-- Who answers each user message. A client's message id is unique per owner,
-- so one message sent twice resolves to one thread and one turn. A running
-- turn is alive while its runner is (an app process's advisory lock), or,
-- with no runner (a durable run, the embedded database), while its lease
-- lasts; a dead turn's message may be answered again.
CREATE TABLE turns (
  owner               text NOT NULL,
  message_id          text NOT NULL,
  thread_id           uuid NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  -- A later turn of the same message (a regenerate, a take-over) takes the row over with a new turn_id.
  turn_id             text NOT NULL,
  status              text NOT NULL CHECK (status IN ('running', 'done', 'failed')),
  -- Renewed by its runner while it works. Null on a running turn: no expiry (a durable run finishes
  -- it); null once the turn is finished.
  lease_until         timestamptz,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  -- The turn_id a Stop was asked for, so a Stop meant for an earlier turn never ends a later one.
  stop_requested_turn text,
  -- The advisory-lock key of the process running it (null: told by its lease alone).
  runner              bigint,
  -- How many times the reply went on after the user's decisions: bounded by the operator's most.
  rounds              integer NOT NULL DEFAULT 0,
  PRIMARY KEY (owner, message_id)
);

-- A thread's unfinished turn: running (the page shows Stop) or not answered (Retry).
CREATE INDEX turns_thread_idx ON turns (thread_id) WHERE status <> 'done';
