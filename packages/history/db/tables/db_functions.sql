-- The text each file of db/functions/ was last applied with (its sha256), so
-- that the migrator applies only the files that changed.
CREATE TABLE db_functions (
  name       text PRIMARY KEY,
  checksum   text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);
