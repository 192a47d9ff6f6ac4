-- Up Migration
-- Documents the agents write in a thread and the owner revises: each version
-- kept, by whom (an agent's name, or 'you' for the owner) and, for a version
-- an agent wrote, the reply that wrote it and the tool call (a retried step
-- writes it once). A version follows the reply whose path it is on: the
-- page shows a document as of the thread's active path (a regenerated reply's
-- own versions, the owner's edits made on top of a reply's version with it).
-- Deleted with the thread.
CREATE TABLE documents (
  id uuid PRIMARY KEY,
  thread_id uuid NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
  kind text NOT NULL CHECK (kind IN ('markdown', 'code')),
  language text CHECK (char_length(language) BETWEEN 1 AND 40),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX documents_thread_idx ON documents (thread_id, created_at, id);

CREATE TABLE document_versions (
  document_id uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  version integer NOT NULL CHECK (version >= 1),
  content text NOT NULL,
  author text NOT NULL CHECK (char_length(author) BETWEEN 1 AND 64),
  -- The reply version it belongs with: the one that wrote it, or the one the owner's edit was made on.
  message_id text NOT NULL CHECK (char_length(message_id) <= 128),
  -- The tool call that wrote it (null: the owner's edit).
  tool_call_id text CHECK (char_length(tool_call_id) <= 256),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (document_id, version),
  CONSTRAINT document_versions_call_key UNIQUE (document_id, message_id, tool_call_id)
);

-- Down Migration
DROP TABLE document_versions;
DROP TABLE documents;
