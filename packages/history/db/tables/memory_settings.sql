-- Whether a person's memory is on (no row: it is).
CREATE TABLE memory_settings (
  owner      text PRIMARY KEY CHECK (char_length(owner) <= 200),
  enabled    boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
