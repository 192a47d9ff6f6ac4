-- Up Migration
-- A thread's reply that waits for the user's approval is found by this index
-- whenever a turn opens there (the new message settles it first), so a thread
-- without one pays one empty index probe.
CREATE INDEX messages_waiting_idx ON messages (thread_id) WHERE status = 'waiting' AND part_index = 0;

-- Down Migration
DROP INDEX messages_waiting_idx;
