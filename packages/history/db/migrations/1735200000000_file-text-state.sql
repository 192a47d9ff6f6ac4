-- Up Migration
-- A PDF's text is read after its upload has answered, off the request path,
-- by whichever server takes it first (lib/files/pdf-extractions.ts).
-- text_state: 'pending' until read, then 'done' (extracted_text holds it, or
-- null when the PDF holds none) or 'failed' (it passed a limit on what is
-- read); null for a file that is not a PDF. A server holds a pending file
-- until text_lease_until; one that dies holding it leaves it to the next
-- server that looks once that has passed, at most three times
-- (text_attempts): a PDF that ends every server that reads it fails.
ALTER TABLE files
  ADD COLUMN text_state text CHECK (text_state IN ('pending', 'done', 'failed')),
  ADD COLUMN text_lease_until timestamptz,
  ADD COLUMN text_attempts smallint NOT NULL DEFAULT 0;
UPDATE files SET text_state = 'done' WHERE media_type = 'application/pdf';
CREATE INDEX files_pending_text_idx ON files (uploaded_at) WHERE text_state = 'pending';

-- Down Migration
DROP INDEX files_pending_text_idx;
ALTER TABLE files DROP COLUMN text_attempts, DROP COLUMN text_lease_until, DROP COLUMN text_state;
