-- An admin's invite: a link that makes one account, once, before it expires.
CREATE TABLE auth_invites (
  -- Only a digest of the code: the database alone cannot open a link.
  code_hash   text PRIMARY KEY,
  created_by  text NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  used_by     text REFERENCES auth_users (id) ON DELETE SET NULL,
  revoked_at  timestamptz
);
CREATE INDEX auth_invites_created_idx ON auth_invites (created_at DESC);
