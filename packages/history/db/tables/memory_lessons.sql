-- Learning after a reply (lib/memory/): one lesson per reply.
-- Inline, a server takes a due lesson (taken_until, runner: its process's
-- lock key) and keeps each finished step's result in `steps`, so a lesson a
-- dead server left is taken over where it stopped; on Inngest the run's steps
-- are kept by Inngest and the row only says done.
CREATE TABLE memory_lessons (
  thread_id   uuid NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  reply_id    text NOT NULL CHECK (char_length(reply_id) <= 256),
  owner       text NOT NULL CHECK (char_length(owner) <= 200),
  state       text NOT NULL DEFAULT 'due' CHECK (state IN ('due', 'done', 'failed')),
  attempts    integer NOT NULL DEFAULT 0,
  taken_until timestamptz NOT NULL DEFAULT now(),
  runner      bigint,
  -- On Inngest, the event whose run learns from the reply: a second event for it (sent twice) learns nothing.
  claimant    text CHECK (char_length(claimant) <= 200),
  steps       jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- What it came to, in a few words (learned 2, skipped: memory off …), for the log and the tests.
  outcome     text CHECK (char_length(outcome) <= 500),
  created_at  timestamptz NOT NULL DEFAULT now(),
  done_at     timestamptz,
  PRIMARY KEY (thread_id, reply_id)
);
-- What the due work looks for.
CREATE INDEX memory_lessons_due_idx ON memory_lessons (taken_until) WHERE state = 'due';
CREATE INDEX memory_lessons_owner_idx ON memory_lessons (owner);
