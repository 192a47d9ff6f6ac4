-- Up Migration
-- Its functions are in db/functions/, one file each (applied after the
-- migrations): threadline_append_user_message, threadline_claim_turn,
-- threadline_open_turn, threadline_turn_running, threadline_upsert_thread.

