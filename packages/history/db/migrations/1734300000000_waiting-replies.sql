-- Up Migration
-- A thread's reply that waits for the user's approval is found by this index
-- whenever a turn opens there (the new message settles it first), so a thread
-- without one pays one empty index probe.
CREATE INDEX messages_waiting_idx ON messages (thread_id) WHERE status = 'waiting' AND part_index = 0;

-- The deciding page's time zone: an approved call runs in it (a reminder's "5 pm" is the user's).
ALTER TABLE tool_approvals ADD COLUMN time_zone text CHECK (char_length(time_zone) <= 100);

-- Down Migration
ALTER TABLE tool_approvals DROP COLUMN time_zone;
DROP INDEX messages_waiting_idx;
