-- Up Migration
-- Its functions are in db/functions/, one file each (applied after the
-- migrations): threadline_fork_thread, threadline_upsert_thread.

-- Where a conversation came from: the page (web), a client of the HTTP API
-- (api), an AgentKit network (agentkit), a file (import) or another thread
-- (fork), with the entry point's own id for it and what it says about it.
-- Set when the thread is made, never changed. Threads made before it count as
-- the page's.
ALTER TABLE threads
  ADD COLUMN source text NOT NULL DEFAULT 'web' CHECK (source IN ('web', 'api', 'agentkit', 'import', 'fork')),
  ADD COLUMN source_id text CHECK (char_length(source_id) BETWEEN 1 AND 200),
  ADD COLUMN source_metadata jsonb CHECK (jsonb_typeof(source_metadata) = 'object');
-- The thread list filtered by source, newest first, as the sidebar's order.
CREATE INDEX threads_owner_source_updated ON threads (owner, source, updated_at DESC, id DESC);
