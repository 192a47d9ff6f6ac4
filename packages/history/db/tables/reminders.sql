-- A reminder an agent scheduled (its tool call approved): when due it posts a
-- message into its thread, once. Its id is the scheduling call's key, so the
-- same call run again schedules nothing more.
CREATE TABLE reminders (
  id           uuid PRIMARY KEY,
  thread_id    uuid NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  owner        text NOT NULL,
  text         text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 500),
  due_at       timestamptz NOT NULL,
  time_zone    text NOT NULL,
  status       text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'posted', 'cancelled')),
  created_at   timestamptz NOT NULL DEFAULT now(),
  settled_at   timestamptz,
  -- The message it posted.
  message_id   text,
  -- Due reminders are looked at in order of their next look, not of their
  -- time: one whose thread is busy steps aside with a later look.
  next_look_at timestamptz NOT NULL,
  -- How many looks found its thread busy: each one waits longer, up to a cap.
  busy_looks   integer NOT NULL DEFAULT 0,
  CHECK ((status = 'scheduled') = (settled_at IS NULL))
);

CREATE INDEX reminders_next_look_idx ON reminders (next_look_at) WHERE status = 'scheduled';
-- The caps count an owner's pending reminders at each scheduling.
CREATE INDEX reminders_owner_idx ON reminders (owner) WHERE status = 'scheduled';
CREATE INDEX reminders_thread_idx ON reminders (thread_id) WHERE status = 'scheduled';
