-- Up Migration

-- A reply whose model stream broke off (a dropped connection, a malformed
-- chunk, a model that went silent) keeps the text the user already saw, marked
-- incomplete rather than thrown away.
ALTER TABLE messages DROP CONSTRAINT messages_status_check;
ALTER TABLE messages ADD CONSTRAINT messages_status_check CHECK (status IN ('complete', 'stopped', 'incomplete'));
