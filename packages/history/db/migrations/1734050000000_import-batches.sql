-- Up Migration
-- Its functions are in db/functions/, one file each (applied after the
-- migrations): threadline_import_finish, threadline_import_parts.

