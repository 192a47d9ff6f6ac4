-- A person's passkeys (WebAuthn credentials).
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
