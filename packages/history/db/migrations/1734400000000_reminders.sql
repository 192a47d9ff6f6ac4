-- Up Migration
-- Its functions are in db/functions/, one file each: threadline_post_reminder
-- and threadline_post_due_reminders.

-- A reminder an agent scheduled (its tool call approved): at due_at it posts
-- a message into its thread, once. Its id is the scheduling call's key, so the
-- same approved call, run again after a crash or a retry, schedules nothing
-- more. A deleted thread takes its reminders with it.
CREATE TABLE reminders (
  id          uuid PRIMARY KEY,
  thread_id   uuid NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  owner       text NOT NULL,
  text        text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 500),
  due_at      timestamptz NOT NULL,
  time_zone   text NOT NULL,
  status      text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'posted', 'cancelled')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  settled_at  timestamptz,
  -- The message it posted.
  message_id  text,
  CHECK ((status = 'scheduled') = (settled_at IS NULL))
);
CREATE INDEX reminders_due_idx ON reminders (due_at) WHERE status = 'scheduled';
CREATE INDEX reminders_thread_idx ON reminders (thread_id) WHERE status = 'scheduled';

-- Down Migration
DROP TABLE reminders;
