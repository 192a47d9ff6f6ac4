-- One-time links that carry an anonymous identity to another browser.
CREATE TABLE device_links (
  -- Only a digest of the code: the database alone cannot open a link.
  code_hash  text PRIMARY KEY,
  owner      text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz,
  revoked_at timestamptz
);

CREATE INDEX device_links_owner ON device_links (owner);
