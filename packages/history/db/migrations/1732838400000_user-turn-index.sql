-- Up Migration

-- A lastN history policy reads from the N-th last user message on: this index
-- holds only user messages, so finding that start walks N entries back, not
-- the whole thread.
CREATE INDEX messages_user_turns_idx ON messages (thread_id, seq DESC) WHERE kind = 'user';
