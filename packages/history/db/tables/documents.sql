-- Documents the agents write in a thread and the owner revises; their text is
-- in document_versions.
CREATE TABLE documents (
  id         uuid PRIMARY KEY,
  thread_id  uuid NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  title      text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
  kind       text NOT NULL CHECK (kind IN ('markdown', 'code')),
  language   text CHECK (char_length(language) BETWEEN 1 AND 40),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX documents_thread_idx ON documents (thread_id, created_at, id);
