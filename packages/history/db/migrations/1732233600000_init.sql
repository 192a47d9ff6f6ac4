-- Up Migration

-- Threads belong to one identity (owner). updated_at is bumped on every new
-- message and drives the sidebar; next_seq hands out the per-thread order.
CREATE TABLE threads (
  id              uuid PRIMARY KEY,
  owner           text NOT NULL,
  title           text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  message_count   integer NOT NULL DEFAULT 0,
  next_seq        bigint NOT NULL DEFAULT 1,
  metadata        jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- Sidebar: an owner's threads by recent activity, keyset-paginated on (updated_at, id).
CREATE INDEX threads_owner_activity_idx ON threads (owner, updated_at DESC, id DESC);

-- One row per conversation part. Order is seq, never a clock. kind leaves room
-- for tool calls, reasoning and system events next to user and assistant text.
CREATE TABLE messages (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  thread_id       uuid NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  seq             bigint NOT NULL,
  message_id      text NOT NULL,
  kind            text NOT NULL CHECK (kind IN ('user', 'assistant', 'tool_call', 'tool_result', 'reasoning', 'system_event')),
  agent_name      text,
  content         text NOT NULL,
  -- true when content holds NUL characters escaped (Postgres text cannot store U+0000)
  content_escaped boolean NOT NULL DEFAULT false,
  status          text NOT NULL DEFAULT 'complete' CHECK (status IN ('complete', 'stopped')),
  data            jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at      timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT messages_thread_message_id_key UNIQUE (thread_id, message_id),
  CONSTRAINT messages_thread_seq_key UNIQUE (thread_id, seq)
);
-- The unique (thread_id, seq) constraint is also the index for "messages of a
-- thread in order" and for reading the last N of them backwards.

-- Secrets the app generates for itself when the operator sets none (the
-- cookie-signing key), so that a restart does not sign everybody out.
CREATE TABLE app_secrets (
  name       text PRIMARY KEY,
  value      text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
