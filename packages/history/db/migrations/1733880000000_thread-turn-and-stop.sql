-- Up Migration
-- Its functions are in db/functions/, one file each (applied after the
-- migrations): threadline_open_turn, threadline_request_stop.

-- One turn per thread, and Stop, decided by the database rather than by the
-- process that happens to run a turn: with several app servers a second
-- message (or a Stop) may reach a process that knows nothing of the running
-- turn.

-- The turn a Stop was asked for (its turn_id). A later turn of the same
-- message (a regenerate, a take-over) takes the message's row over with a new
-- turn_id, so a Stop meant for an earlier turn never ends it.
ALTER TABLE turns ADD COLUMN stop_requested_turn text;
