-- Secrets the app generates for itself when the operator sets none (the
-- cookie-signing key), so that a restart does not sign everybody out.
CREATE TABLE app_secrets (
  name       text PRIMARY KEY,
  value      text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
