-- A conversation. It belongs to one identity (owner); updated_at is bumped on
-- every new message and drives the sidebar; next_seq hands out the thread's
-- message order (seq only grows, never reused).
CREATE TABLE threads (
  id              uuid PRIMARY KEY,
  owner           text NOT NULL,
  title           text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  -- The active path's user and assistant messages, recounted when the path changes.
  message_count   integer NOT NULL DEFAULT 0,
  next_seq        bigint NOT NULL DEFAULT 1,
  metadata        jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- The seq of the active path's latest summary (compaction); null until the thread is first compacted.
  summary_seq     bigint,
  -- Who set the title: 'message' (its first message's first words), 'model'
  -- (stored only over a 'message' title, so a rename is never overwritten) or 'user'.
  title_source    text NOT NULL DEFAULT 'message' CHECK (title_source IN ('message', 'model', 'user')),
  -- When the owner last saw the thread: a reply newer than this is unseen.
  last_read_at    timestamptz DEFAULT now(),
  -- Where the conversation came from, set when it is made and never changed,
  -- with the entry point's own id for it and what it says about it.
  source          text NOT NULL DEFAULT 'web' CHECK (source IN ('web', 'api', 'agentkit', 'import', 'fork', 'share')),
  source_id       text CHECK (char_length(source_id) BETWEEN 1 AND 200),
  source_metadata jsonb CHECK (jsonb_typeof(source_metadata) = 'object'),
  -- The model its latest reply was written with (`provider:model`): where the page's picker starts.
  model           text CHECK (char_length(model) <= 300)
);

-- Sidebar: an owner's threads by recent activity, keyset-paginated on (updated_at, id).
CREATE INDEX threads_owner_activity_idx ON threads (owner, updated_at DESC, id DESC);
-- The same list filtered by source.
CREATE INDEX threads_owner_source_updated ON threads (owner, source, updated_at DESC, id DESC);
-- Search across threads matches titles as well as what was said.
CREATE INDEX threads_title_search_idx ON threads USING gin (to_tsvector('english', coalesce(title, '')));
