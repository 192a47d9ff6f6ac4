-- Up Migration
-- Accounts (lib/accounts/): people who sign in, their sessions, the ways
-- they sign in (a password, an identity provider, a passkey), the one-time
-- tokens of resets and mails, and invites. Better Auth reads and writes the
-- first five through its field names, mapped to these columns in
-- lib/accounts/better-auth.ts; the app reads them by these names. A person's
-- id is the owner id of everything they keep (threads.owner and the rest).
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

CREATE TABLE auth_accounts (
  id                       text PRIMARY KEY,
  user_id                  text NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
  -- credential (a password), or an identity provider's id; account_id: the person's id there.
  provider_id              text NOT NULL,
  account_id               text NOT NULL,
  password                 text,
  access_token             text,
  refresh_token            text,
  id_token                 text,
  access_token_expires_at  timestamptz,
  refresh_token_expires_at timestamptz,
  scope                    text,
  created_at               timestamptz NOT NULL DEFAULT now(),
  updated_at               timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auth_accounts_user_idx ON auth_accounts (user_id);

-- One-time values: a password reset's token, a magic link's, an OIDC sign-in's state.
CREATE TABLE auth_verifications (
  id          text PRIMARY KEY,
  identifier  text NOT NULL,
  value       text NOT NULL,
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auth_verifications_identifier_idx ON auth_verifications (identifier);

CREATE TABLE auth_passkeys (
  id            text PRIMARY KEY,
  user_id       text NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
  name          text,
  public_key    text NOT NULL,
  credential_id text NOT NULL,
  counter       integer NOT NULL,
  device_type   text NOT NULL,
  backed_up     boolean NOT NULL,
  transports    text,
  aaguid        text,
  created_at    timestamptz
);
CREATE INDEX auth_passkeys_user_idx ON auth_passkeys (user_id);
CREATE INDEX auth_passkeys_credential_idx ON auth_passkeys (credential_id);

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

-- The first account to sign up is the admin: whoever inserts this one row
-- first, however many sign up at the same moment on however many servers.
CREATE TABLE auth_first_admin (
  only_row   boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  email      text NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE auth_first_admin;
DROP TABLE auth_invites;
DROP TABLE auth_passkeys;
DROP TABLE auth_verifications;
DROP TABLE auth_accounts;
DROP TABLE auth_sessions;
DROP TABLE auth_users;
