-- A way a person signs in: a password (provider credential) or an identity provider's account.
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
