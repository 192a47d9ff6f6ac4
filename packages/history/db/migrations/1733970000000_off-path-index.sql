-- Up Migration

-- A thread's versions are found from the messages off its active path (the
-- versions a regenerate or an edit left behind), which are few, instead of
-- from every message on it: the page of a long thread must not cost more than
-- the page of a short one.
CREATE INDEX messages_off_path_idx ON messages (thread_id, parent_message_id) WHERE NOT active AND part_index = 0;
