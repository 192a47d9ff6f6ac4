-- Rate-limit counters (rate-limiter-flexible's Postgres store), kept in the
-- database so that every app server counts against the same numbers.
CREATE TABLE rate_limits (
  key    varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  -- A Unix time in milliseconds.
  expire bigint
);
