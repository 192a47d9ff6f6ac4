-- Up Migration

-- Who answers each user message. A client's message id is unique per owner,
-- so one message sent twice (a double click, a resend after a crash, a second
-- tab) resolves to one thread and one turn. A running turn holds a lease that
-- its runner renews while it works; a lease that ran out means the runner
-- died, and the message may be answered again. A durable run (Inngest) holds
-- it without expiry: the run itself finishes the turn.
CREATE TABLE turns (
  owner        text NOT NULL,
  message_id   text NOT NULL,
  thread_id    uuid NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  turn_id      text NOT NULL,
  status       text NOT NULL CHECK (status IN ('running', 'done', 'failed')),
  lease_until  timestamptz,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (owner, message_id)
);

-- A thread's unfinished turn: running (the page shows Stop) or not answered (Retry).
CREATE INDEX turns_thread_idx ON turns (thread_id) WHERE status <> 'done';

-- Messages stored before this table existed were answered (or failed) already.
INSERT INTO turns (owner, message_id, thread_id, turn_id, status)
SELECT t.owner, m.message_id, m.thread_id, coalesce(m.turn_id, 'before-turns'), 'done'
  FROM messages m JOIN threads t ON t.id = m.thread_id
 WHERE m.kind = 'user'
ON CONFLICT (owner, message_id) DO NOTHING;
