-- A temporary chat (lib/memory/): its turns neither read nor write memory.
CREATE TABLE temporary_threads (
  thread_id  uuid PRIMARY KEY REFERENCES threads (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now()
);
