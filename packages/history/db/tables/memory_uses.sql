-- The memories a reply was given (lib/memory/), in the order the model read them.
CREATE TABLE memory_uses (
  thread_id  uuid NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  message_id text NOT NULL CHECK (char_length(message_id) <= 256),
  memory_ids uuid[] NOT NULL CHECK (cardinality(memory_ids) <= 100),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (thread_id, message_id)
);
