-- Up Migration
-- Due reminders are looked at in order of their next look, not of their time:
-- one that cannot be posted yet (its thread busy or waiting for a decision)
-- steps aside with a later look, so a pile of blocked reminders never holds
-- the first places of every look while others' reminders wait behind them.
ALTER TABLE reminders
  ADD COLUMN next_look_at timestamptz,
  -- How many looks found its thread busy: each one waits longer, up to a cap.
  ADD COLUMN busy_looks integer NOT NULL DEFAULT 0;
UPDATE reminders SET next_look_at = due_at;
ALTER TABLE reminders ALTER COLUMN next_look_at SET NOT NULL;

DROP INDEX reminders_due_idx;
CREATE INDEX reminders_next_look_idx ON reminders (next_look_at) WHERE status = 'scheduled';
-- The caps count an owner's pending reminders at each scheduling.
CREATE INDEX reminders_owner_idx ON reminders (owner) WHERE status = 'scheduled';

-- Down Migration
DROP INDEX reminders_owner_idx;
DROP INDEX reminders_next_look_idx;
CREATE INDEX reminders_due_idx ON reminders (due_at) WHERE status = 'scheduled';
ALTER TABLE reminders DROP COLUMN busy_looks, DROP COLUMN next_look_at;
