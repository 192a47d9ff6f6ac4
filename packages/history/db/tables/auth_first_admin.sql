-- The first account to sign up is the admin: whoever inserts this one row
-- first, however many sign up at the same moment on however many servers.
CREATE TABLE auth_first_admin (
  only_row   boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  email      text NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT now()
);
