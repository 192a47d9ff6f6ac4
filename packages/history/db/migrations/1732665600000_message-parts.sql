-- Up Migration

-- A message is an ordered list of parts, one row each (text, reasoning, a tool
-- call, its result, a hand-over). seq still orders the whole thread;
-- part_index numbers the parts of one message, and the idempotency key of a
-- stored part becomes (thread_id, message_id, part_index). Every existing row
-- is part 0 of its message and reads as before.
ALTER TABLE messages ADD COLUMN part_index integer NOT NULL DEFAULT 0;
ALTER TABLE messages DROP CONSTRAINT messages_thread_message_id_key;
ALTER TABLE messages ADD CONSTRAINT messages_thread_message_part_key UNIQUE (thread_id, message_id, part_index);

ALTER TABLE messages DROP CONSTRAINT messages_kind_check;
ALTER TABLE messages ADD CONSTRAINT messages_kind_check
  CHECK (kind IN ('user', 'assistant', 'tool_call', 'tool_result', 'reasoning', 'handoff', 'system_event'));

-- search_threads: full-text search over what the user and the agents wrote.
CREATE INDEX messages_text_search_idx ON messages USING gin (to_tsvector('english', content))
  WHERE kind IN ('user', 'assistant');
