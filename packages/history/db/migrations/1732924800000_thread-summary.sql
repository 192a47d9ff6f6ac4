-- Up Migration

-- Compaction stores the summary of a long thread's earlier messages as a
-- system_event part of its own message (the messages stay). The thread points
-- at its latest summary, so the statement that opens a turn finds it without
-- another read; NULL until the thread is first compacted.
ALTER TABLE threads ADD COLUMN summary_seq bigint;
