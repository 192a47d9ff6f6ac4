-- Up Migration
-- Memory learned after replies and given to the model (lib/memory/): what each
-- reply taught and was given, and the threads that neither read nor write it.

-- A tombstone's words, folded (lower case, each run of spaces and punctuation
-- one space) and hashed: the message the memory came from never teaches the
-- same words again, and the words themselves are gone.
ALTER TABLE memories ADD COLUMN forgotten text CHECK (forgotten IS NULL OR state = 'deleted');
CREATE INDEX memories_forgotten_idx ON memories (owner, source_message_id, forgotten) WHERE state = 'deleted';

-- One lesson per reply: the step after it that learns from the exchange.
-- Inline, a server takes a due lesson (taken_until, runner: its process's
-- lock key, lib/db/runner-lock.ts) and keeps each finished step's result in
-- `steps`, so a lesson a dead server left is taken over where it stopped;
-- on Inngest the run's steps are kept by Inngest and the row only says done.
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

-- The memories a reply was given, in the order the model read them.
CREATE TABLE memory_uses (
  thread_id  uuid NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  message_id text NOT NULL CHECK (char_length(message_id) <= 256),
  memory_ids uuid[] NOT NULL CHECK (cardinality(memory_ids) <= 100),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (thread_id, message_id)
);

-- A temporary chat: its turns neither read nor write memory.
CREATE TABLE temporary_threads (
  thread_id  uuid PRIMARY KEY REFERENCES threads (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE temporary_threads;
DROP TABLE memory_uses;
DROP TABLE memory_lessons;
DROP INDEX memories_forgotten_idx;
ALTER TABLE memories DROP COLUMN forgotten;
