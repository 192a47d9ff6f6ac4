-- Files the owners attach to their messages, stored once per owner and
-- content: the same file sent twice, or into two threads, is one row. A
-- message holds one as a 'file' part naming it in data->>'fileId'; a file no
-- message names is an upload not sent yet, swept a day after its last upload.
CREATE TABLE files (
  id               uuid PRIMARY KEY,
  owner            text NOT NULL,
  sha256           bytea NOT NULL CHECK (octet_length(sha256) = 32),
  media_type       text NOT NULL,
  size             integer NOT NULL CHECK (size >= 0),
  -- The name it was first uploaded under: a download's name when no message names it.
  name             text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  content          bytea NOT NULL,
  -- What a model reads of a PDF: its text, taken out once (null: none could be).
  extracted_text   text,
  uploaded_at      timestamptz NOT NULL DEFAULT now(),
  -- A PDF's text is read after its upload answered, by whichever server takes
  -- it first: 'pending' until read, then 'done' or 'failed'; null for a file
  -- that is not a PDF. A server holds a pending file until text_lease_until,
  -- at most three times (text_attempts): a PDF that ends every server that reads it fails.
  text_state       text CHECK (text_state IN ('pending', 'done', 'failed')),
  text_lease_until timestamptz,
  text_attempts    smallint NOT NULL DEFAULT 0,
  CONSTRAINT files_owner_content_key UNIQUE (owner, sha256)
);

CREATE INDEX files_pending_text_idx ON files (uploaded_at) WHERE text_state = 'pending';
-- Uploads not sent yet, swept by age.
CREATE INDEX files_unsent_idx ON files (uploaded_at);
