-- Up Migration

-- Rate-limit counters (rate-limiter-flexible's Postgres store), kept in the
-- database so that every app server counts against the same numbers. `expire`
-- is a Unix time in milliseconds.
CREATE TABLE rate_limits (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);

-- Down Migration

DROP TABLE rate_limits;
