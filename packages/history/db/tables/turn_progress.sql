-- A running turn's stream as it is written, for a client that joins late (a
-- reload, another tab or device, another server) to read before following
-- live. One row per flush, in id order; a turn's last row is `final`. Swept
-- some minutes after the turn ended, when the stored reply says the same.
CREATE TABLE turn_progress (
  id         bigserial PRIMARY KEY,
  turn_id    text NOT NULL,
  -- JSON kept as text: jsonb refuses the NUL a reply may hold, and nothing queries inside it.
  chunks     text NOT NULL,
  final      boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX turn_progress_created_idx ON turn_progress (created_at);
CREATE INDEX turn_progress_turn_idx ON turn_progress (turn_id, id);
