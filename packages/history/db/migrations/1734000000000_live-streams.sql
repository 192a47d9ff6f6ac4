-- Up Migration
-- Its functions are in db/functions/, one file each (applied after the
-- migrations): threadline_open_live_stream.

-- The live streams (GET /api/threads/:id/stream, GET /api/threads/events) an
-- identity holds open, on every app server: each is a row, so a cap on them
-- (MAX_LIVE_STREAMS_PER_IDENTITY) holds across servers. The server holding a
-- stream renews its lease while it is open and deletes the row when it ends;
-- a server that dies leaves rows that lapse with their lease (and are swept
-- by the next opening of the owner's, or by any server's renewal later).
CREATE TABLE live_streams (
  id          uuid PRIMARY KEY,
  owner       text NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX live_streams_owner_idx ON live_streams (owner);
CREATE INDEX live_streams_expires_idx ON live_streams (expires_at);

-- Down Migration
DROP TABLE live_streams;
