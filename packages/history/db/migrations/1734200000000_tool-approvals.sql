-- Up Migration
-- Its functions are in db/functions/, one file each: threadline_decide_approval,
-- and threadline_append_reply, which records the approvals a reply's calls wait for.

-- A reply whose tool call waits for the user's approval ends "waiting"; it
-- goes on, under the same message id, once the user decides.
ALTER TABLE messages DROP CONSTRAINT messages_status_check;
ALTER TABLE messages ADD CONSTRAINT messages_status_check CHECK (status IN ('complete', 'stopped', 'incomplete', 'waiting'));

-- One row per tool call that asked for the user's approval: what it waits
-- for, and, once decided, how (the first decision stands). The thread's owner
-- is the only one who may decide; the thread's deletion takes its approvals.
CREATE TABLE tool_approvals (
  id           uuid PRIMARY KEY,
  thread_id    uuid NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  message_id   text NOT NULL,
  tool_call_id text NOT NULL,
  tool_name    text NOT NULL,
  requested_at timestamptz NOT NULL DEFAULT now(),
  decision     text CHECK (decision IN ('approved', 'denied', 'expired', 'stopped', 'moved_on')),
  reason       text,
  decided_at   timestamptz,
  CHECK ((decision IS NULL) = (decided_at IS NULL)),
  CHECK (reason IS NULL OR char_length(reason) <= 500)
);
CREATE INDEX tool_approvals_pending_idx ON tool_approvals (thread_id) WHERE decision IS NULL;

-- Down Migration
DROP TABLE tool_approvals;
ALTER TABLE messages DROP CONSTRAINT messages_status_check;
ALTER TABLE messages ADD CONSTRAINT messages_status_check CHECK (status IN ('complete', 'stopped', 'incomplete'));
