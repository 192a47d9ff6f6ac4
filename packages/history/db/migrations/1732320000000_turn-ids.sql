-- Up Migration

-- The turn that stored a user message. A retried step of the same turn finds
-- its own row and carries on; a different request with the same message id is
-- a duplicate and is refused.
ALTER TABLE messages ADD COLUMN turn_id text;
