-- The self-hosted Inngest (docker compose --profile inngest) keeps its state in
-- a database of its own beside Threadline's. Runs once, when the Postgres
-- volume is first initialized; on an older volume run it by hand.
CREATE DATABASE inngest;
