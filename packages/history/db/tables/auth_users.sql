-- A person who signs in. Their id is the owner id of everything they keep.
CREATE TABLE auth_users (
  id             text PRIMARY KEY,
  name           text NOT NULL,
  email          text NOT NULL UNIQUE,
  email_verified boolean NOT NULL DEFAULT false,
  image          text,
  -- admin: may invite, approve, disable and make admins; member: everyone else.
  role           text NOT NULL DEFAULT 'member' CHECK (role IN ('admin', 'member')),
  -- pending: signed up, waiting for an admin's approval; disabled: an admin
  -- turned them away. Neither may hold a session.
  status         text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'pending', 'disabled')),
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auth_users_created_idx ON auth_users (created_at, id);
