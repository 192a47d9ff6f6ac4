-- One row per tool call that asked for the user's approval: what it waits
-- for and, once decided, how (the first decision stands). Only the thread's
-- owner may decide.
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
  -- The deciding page's time zone: an approved call runs in it (a reminder's "5 pm" is the user's).
  time_zone    text CHECK (char_length(time_zone) <= 100),
  CHECK ((decision IS NULL) = (decided_at IS NULL)),
  CHECK (reason IS NULL OR char_length(reason) <= 500)
);

-- A thread's undecided approvals.
CREATE INDEX tool_approvals_pending_idx ON tool_approvals (thread_id) WHERE decision IS NULL;
-- A reply's approvals, decided or not: what a continuation claims and a waiting reply's page shows.
CREATE INDEX tool_approvals_reply_idx ON tool_approvals (thread_id, message_id);
