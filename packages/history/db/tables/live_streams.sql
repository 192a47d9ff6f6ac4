-- The live streams (GET /api/threads/:id/stream, GET /api/threads/events) an
-- identity holds open, on every app server, so that a cap on them
-- (MAX_LIVE_STREAMS_PER_IDENTITY) holds across servers. The server holding
-- one renews its lease and deletes the row when it ends; a dead server's rows
-- lapse with their lease.
CREATE TABLE live_streams (
  id         uuid PRIMARY KEY,
  owner      text NOT NULL,
  expires_at timestamptz NOT NULL
);

CREATE INDEX live_streams_expires_idx ON live_streams (expires_at);
CREATE INDEX live_streams_owner_idx ON live_streams (owner);
