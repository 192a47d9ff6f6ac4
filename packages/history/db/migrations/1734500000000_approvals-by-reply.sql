-- Up Migration
-- A reply's approvals, decided or not: what a continuation claims and what a
-- page of a waiting reply shows decided so far. The pending index alone
-- leaves the decided ones to a scan of the table.
CREATE INDEX tool_approvals_reply_idx ON tool_approvals (thread_id, message_id);

-- Down Migration
DROP INDEX tool_approvals_reply_idx;
