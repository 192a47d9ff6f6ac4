-- Up Migration

-- Each database function has one file now, db/functions/<name>.sql, holding
-- its current text; the migrator applies the files that changed after the
-- migrations (lib/db/migrate.mjs), so a rule's change is a change to its one
-- file. This table remembers the text each was last applied with.
CREATE TABLE db_functions (
  name text PRIMARY KEY,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);

-- The first upsert of a thread, which the one that records where a thread
-- came from replaced in every caller.
DROP FUNCTION IF EXISTS threadline_upsert_thread(uuid, text);

-- Down Migration
DROP TABLE db_functions;
