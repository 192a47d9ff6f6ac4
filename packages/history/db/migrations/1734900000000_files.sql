-- Up Migration
-- Files the owners attach to their messages. Stored once per owner and
-- content (sha256): the same file sent twice, or into two threads, is one
-- row. A message holds a file as a part of its own (kind 'file', after the
-- message's text), which names the row in data->>'fileId'. A file no message
-- names is an upload not sent yet: removed a day after its last upload
-- (threadline_sweep_files); one a deleted thread named goes with it unless
-- another thread names it too (threadline_delete_thread).
CREATE TABLE files (
  id uuid PRIMARY KEY,
  owner text NOT NULL,
  sha256 bytea NOT NULL CHECK (octet_length(sha256) = 32),
  media_type text NOT NULL,
  size integer NOT NULL CHECK (size >= 0),
  -- The name it was first uploaded under: a download's name when no message names it.
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  content bytea NOT NULL,
  -- What a model reads of a PDF: its text, taken out once at upload (null: none could be).
  extracted_text text,
  uploaded_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT files_owner_content_key UNIQUE (owner, sha256)
);
CREATE INDEX files_unsent_idx ON files (uploaded_at);

ALTER TABLE messages DROP CONSTRAINT messages_kind_check;
ALTER TABLE messages ADD CONSTRAINT messages_kind_check
  CHECK (kind IN ('user', 'assistant', 'tool_call', 'tool_result', 'reasoning', 'handoff', 'system_event', 'file'));
-- Which messages name a file: whether it is still used.
CREATE INDEX messages_file_refs_idx ON messages ((data->>'fileId')) WHERE kind = 'file';

-- Down Migration
DROP INDEX messages_file_refs_idx;
DELETE FROM messages WHERE kind = 'file';
ALTER TABLE messages DROP CONSTRAINT messages_kind_check;
ALTER TABLE messages ADD CONSTRAINT messages_kind_check
  CHECK (kind IN ('user', 'assistant', 'tool_call', 'tool_result', 'reasoning', 'handoff', 'system_event'));
DROP TABLE files;
