-- Up Migration

-- One-time links that carry an anonymous identity to another browser. Only a
-- digest of the code is stored: the database alone cannot open a link.
CREATE TABLE device_links (
  code_hash text PRIMARY KEY,
  owner text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX device_links_owner ON device_links (owner);

-- Down Migration

DROP TABLE device_links;
