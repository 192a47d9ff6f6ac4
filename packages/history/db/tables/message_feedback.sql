-- What the owner thought of a reply: one row per reply version (its message
-- id), set, changed and cleared by the owner. Never part of what a model
-- reads: nothing that builds a model's input joins it.
CREATE TABLE message_feedback (
  thread_id  uuid NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  message_id text NOT NULL CHECK (char_length(message_id) <= 128),
  rating     text NOT NULL CHECK (rating IN ('up', 'down')),
  reason     text CHECK (char_length(reason) <= 40),
  comment    text CHECK (char_length(comment) <= 2000),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (thread_id, message_id)
);

-- The owner's feedback since a time (GET /api/feedback?since=), oldest first.
CREATE INDEX message_feedback_updated_idx ON message_feedback (updated_at, thread_id, message_id);
