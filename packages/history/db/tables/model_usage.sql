-- What each model call spent, stored with the reply, title or summary it
-- wrote. The call's id is made in its step, so a durable runtime's replay
-- stores it once.
CREATE TABLE model_usage (
  id               uuid PRIMARY KEY,
  thread_id        uuid NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  -- The reply (or the summary) it wrote; a title's has none.
  message_id       text,
  agent            text CHECK (char_length(agent) <= 64),
  purpose          text NOT NULL CHECK (purpose IN ('answer', 'sub-agent', 'title', 'summary')),
  model            text NOT NULL CHECK (char_length(model) <= 300),
  input_tokens     bigint NOT NULL CHECK (input_tokens >= 0),
  output_tokens    bigint NOT NULL CHECK (output_tokens >= 0),
  cached_tokens    bigint NOT NULL CHECK (cached_tokens >= 0),
  reasoning_tokens bigint NOT NULL CHECK (reasoning_tokens >= 0),
  created_at       timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX model_usage_thread_idx ON model_usage (thread_id, message_id);
