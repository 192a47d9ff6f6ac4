-- Each version of a document, kept: by whom and with which reply. The page
-- shows a document as of the thread's active path (a regenerated reply's own
-- versions, the owner's edits made on top of a reply's version with it).
CREATE TABLE document_versions (
  document_id  uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  version      integer NOT NULL CHECK (version >= 1),
  content      text NOT NULL,
  -- An agent's name, or 'you' for the owner.
  author       text NOT NULL CHECK (char_length(author) BETWEEN 1 AND 64),
  -- The reply version it belongs with: the one that wrote it, or the one the owner's edit was made on.
  message_id   text NOT NULL CHECK (char_length(message_id) <= 128),
  -- The tool call that wrote it (null: the owner's edit).
  tool_call_id text CHECK (char_length(tool_call_id) <= 256),
  created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (document_id, version),
  -- A retried step writes its version once.
  CONSTRAINT document_versions_call_key UNIQUE (document_id, message_id, tool_call_id)
);
