-- Up Migration
-- Share links (lib/shares/): a read-only snapshot of one branch of a thread,
-- opened by anyone who has its link until it expires or is revoked.
-- A share link. `id` is the random half of the link's id (the other half is
-- the server's signature of it); the snapshot is the branch as it was, with
-- what the options hide already taken out. A revoked link keeps its row, so
-- it answers "gone" rather than "unknown", but not its snapshot.
CREATE TABLE shares (
  id            text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9_-]{22}$'),
  owner         text NOT NULL CHECK (char_length(owner) <= 200),
  -- Null once the thread is deleted (which revokes the link first).
  thread_id     uuid REFERENCES threads (id) ON DELETE SET NULL,
  title         text CHECK (char_length(title) <= 500),
  options       jsonb NOT NULL CHECK (jsonb_typeof(options) = 'object'),
  snapshot      jsonb CHECK (jsonb_typeof(snapshot) = 'object'),
  -- The files the snapshot shows, by the id its parts name: each one's SHA-256
  -- (hex), by which the owner's copy is read while the link lives (an id may
  -- change when a guest's files join an account's; the bytes do not).
  files         jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(files) = 'object'),
  created_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz,
  revoked_at    timestamptz,
  views         bigint NOT NULL DEFAULT 0,
  CHECK ((revoked_at IS NULL) = (snapshot IS NOT NULL))
);
-- An owner's links, newest first (their list, and the count of those not revoked).
CREATE INDEX shares_owner_idx ON shares (owner, created_at DESC) WHERE revoked_at IS NULL;
-- A thread's links, revoked with it.
CREATE INDEX shares_thread_idx ON shares (thread_id) WHERE revoked_at IS NULL;

-- A thread continued from a link: source "share", its source_id the link's id.
ALTER TABLE threads DROP CONSTRAINT threads_source_check;
ALTER TABLE threads ADD CONSTRAINT threads_source_check CHECK (source IN ('web', 'api', 'agentkit', 'import', 'fork', 'share'));

-- Down Migration
UPDATE threads SET source = 'fork' WHERE source = 'share';
ALTER TABLE threads DROP CONSTRAINT threads_source_check;
ALTER TABLE threads ADD CONSTRAINT threads_source_check CHECK (source IN ('web', 'api', 'agentkit', 'import', 'fork'));
DROP TABLE shares;
