-- One row per part of a message (text, reasoning, a tool call, its result, a
-- hand-over, a file, a summary). seq orders the whole thread, never a clock;
-- part_index numbers the parts of one message.
--
-- Versions form a tree: a regenerated reply or an edited user message is a
-- sibling, never a replacement. Every part row of a message carries its
-- parent_message_id (null for a first message), chosen (the selected one
-- among its siblings, kept when the user switches higher up) and active (on
-- the thread's active path: chosen, and so is every ancestor). A child always
-- has a larger seq than its parent, so the active path is the active rows in
-- seq order.

-- Full-text search reads the first 65,536 characters of a message (a
-- tsvector holds at most 1 MB). One function, so that the index and the
-- queries that must match it cannot drift apart; it is made by its migration,
-- not by db/functions/, because an index is built on it.
CREATE FUNCTION threadline_search_vector(content text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT to_tsvector('english'::regconfig, left(content, 65536)) $$;

CREATE TABLE messages (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  thread_id         uuid NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  seq               bigint NOT NULL,
  message_id        text NOT NULL,
  kind              text NOT NULL CHECK (kind IN ('user', 'assistant', 'tool_call', 'tool_result', 'reasoning', 'handoff', 'system_event', 'file', 'notice')),
  agent_name        text,
  content           text NOT NULL,
  -- true when content holds NUL characters escaped (Postgres text cannot store U+0000)
  content_escaped   boolean NOT NULL DEFAULT false,
  -- incomplete: the model's stream broke off, the text the user saw is kept;
  -- waiting: a tool call waits for the user's approval, the reply goes on under the same message id.
  status            text NOT NULL DEFAULT 'complete' CHECK (status IN ('complete', 'stopped', 'incomplete', 'waiting')),
  -- A part's own fields; a 'file' part names its file in data->>'fileId'.
  data              jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at        timestamptz NOT NULL DEFAULT now(),
  -- The turn that stored a user message: a retried step of it finds its own
  -- row, another request with the same message id is a duplicate.
  turn_id           text,
  part_index        integer NOT NULL DEFAULT 0,
  parent_message_id text,
  chosen            boolean NOT NULL DEFAULT true,
  active            boolean NOT NULL DEFAULT true,
  -- The model that wrote a reply (`provider:model`); null for users' messages and older replies.
  model             text CHECK (char_length(model) <= 300),
  -- A stored part's idempotency key.
  CONSTRAINT messages_thread_message_part_key UNIQUE (thread_id, message_id, part_index),
  -- Also the index for a thread's messages in order, and for reading the last N backwards.
  CONSTRAINT messages_thread_seq_key UNIQUE (thread_id, seq)
);

-- The active path in order (and backwards for a page or a window), costing
-- the same however many versions lie beside it.
CREATE INDEX messages_active_idx ON messages (thread_id, seq) WHERE active;
-- A message's versions: the children of its parent, in the order they were written.
CREATE INDEX messages_children_idx ON messages (thread_id, parent_message_id, seq) WHERE part_index = 0;
-- Which messages name a file: whether it is still used.
CREATE INDEX messages_file_refs_idx ON messages ((data->>'fileId')) WHERE kind = 'file';
-- A thread's versions are found from the few messages off its active path.
CREATE INDEX messages_off_path_idx ON messages (thread_id, parent_message_id) WHERE NOT active AND part_index = 0;
-- search_threads: full-text search over what the user and the agents wrote.
CREATE INDEX messages_text_search_idx ON messages USING gin (threadline_search_vector(content))
  WHERE kind IN ('user', 'assistant') AND active;
-- A lastN history policy starts at the N-th last user message: N entries back, not the whole thread.
CREATE INDEX messages_user_turns_idx ON messages (thread_id, seq DESC) WHERE kind = 'user' AND active;
-- A reply waiting for approval, settled first whenever a turn opens in its thread.
CREATE INDEX messages_waiting_idx ON messages (thread_id) WHERE status = 'waiting' AND part_index = 0;
