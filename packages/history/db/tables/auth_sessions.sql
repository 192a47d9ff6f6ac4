-- A signed-in browser: its cookie carries the token. Deleting the rows of a person signs them out everywhere.
CREATE TABLE auth_sessions (
  id          text PRIMARY KEY,
  token       text NOT NULL UNIQUE,
  user_id     text NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
  expires_at  timestamptz NOT NULL,
  ip_address  text,
  user_agent  text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auth_sessions_user_idx ON auth_sessions (user_id);
