-- Up Migration

-- A running turn is alive while its runner is: the lease alone could not tell
-- a runner killed mid-reply from one alive on another server, so its thread
-- refused new messages until the lease ran out. Now each app process holds a
-- session-level advisory lock under a key of its own, on its one long-lived
-- connection (lib/db/runner-lock.ts), and a turn it runs records that key
-- (`runner`). A process that dies takes its session with it: the kernel
-- closes its socket, Postgres ends the backend and drops its locks, and its
-- turns are dead at once. The lease stays, for a runner alive but cut off
-- from the database (it cannot renew). A turn with no runner is told by its
-- lease alone: a durable run (Inngest: the run outlives any one process, and
-- holds its turn until it finishes it), the embedded database (one backend
-- for every connection: a lock there outlives the process that took it), or
-- a process whose own connection was down when it claimed or renewed, or
-- dropped while the turn ran (the process puts its turns under their leases).
ALTER TABLE turns ADD COLUMN runner bigint;

-- Whether the session that took the advisory lock p_runner (a bigint key:
-- pg_locks shows its high half as classid, its low half as objid, objsubid 1)
-- in this database still holds it. pg_locks, unlike pg_stat_activity, shows
-- every session's locks to every role, and a key, unlike a pid, is never
-- reused by the next backend.
CREATE FUNCTION threadline_runner_alive(p_runner bigint) RETURNS boolean
  LANGUAGE sql STABLE
  AS $$
    SELECT EXISTS (
      SELECT 1 FROM pg_locks l
       WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
         AND l.classid = (p_runner >> 32)::oid AND l.objid = (p_runner & 4294967295)::oid
         AND l.database = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database()))
  $$;

-- Whether a turn is still running: its lease is live (or it has none: a
-- durable run holds it until it finishes), and its runner's session is alive
-- (or it recorded none). Given the whole row, so a rule that reads another
-- column changes here only. Every "is it running" asks this: the claim, a new
-- message's and a version's opening, Stop, the sidebar, the thread page, the
-- resume.
DROP FUNCTION threadline_turn_running(text, timestamptz);
CREATE FUNCTION threadline_turn_running(tu turns) RETURNS boolean
  LANGUAGE sql STABLE
  AS $$
    SELECT tu.status = 'running' AND (tu.lease_until IS NULL OR tu.lease_until >= now())
       AND (tu.runner IS NULL OR threadline_runner_alive(tu.runner))
  $$;

-- Claims the answering of a user's message (its client id, unique per owner)
-- for turn p_turn in thread p_thread, run by the session holding p_runner
-- (null: none; the lease alone tells). Granted when no turn has it, when it
-- is this turn's already (a retried step, a resend of the same request), or
-- when its turn is neither done nor running (it failed, or its runner died);
-- never across threads. A claim that would start answering the message (not
-- a retried step, nor a message answered, running or sent to another thread)
-- is refused (`busy`, nothing written) while another message's turn of the
-- thread runs: one turn per thread, for a new message, a resend of one whose
-- turn died and a duplicate that waited for it alike. The thread's row lock
-- queues the claims of one thread, so each sees the turns the ones before it
-- started. Otherwise: the thread of the turn that has the message, and
-- whether that turn is running. p_lease_ms null: held until finished.
DROP FUNCTION threadline_claim_turn(text, text, uuid, text, float8);
CREATE FUNCTION threadline_claim_turn(p_owner text, p_message text, p_thread uuid, p_turn text, p_lease_ms float8, p_runner bigint)
RETURNS TABLE (thread_id uuid, claimed boolean, running boolean, busy boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_thread uuid;
BEGIN
  PERFORM 1 FROM threads t WHERE t.id = p_thread FOR UPDATE;
  -- A statement of a plpgsql function sees what committed before it began:
  -- the turns of claims that held the thread's lock before this one.
  IF NOT EXISTS (SELECT 1 FROM turns tu WHERE tu.owner = p_owner AND tu.message_id = p_message
                    AND (tu.thread_id <> p_thread OR tu.turn_id = p_turn OR tu.status = 'done' OR threadline_turn_running(tu)))
     AND EXISTS (SELECT 1 FROM turns tu WHERE tu.thread_id = p_thread AND tu.message_id <> p_message AND tu.status <> 'done'
                    AND threadline_turn_running(tu)) THEN
    RETURN QUERY SELECT p_thread, false, true, true;
    RETURN;
  END IF;

  INSERT INTO turns AS tu (owner, message_id, thread_id, turn_id, status, lease_until, runner)
  VALUES (p_owner, p_message, p_thread, p_turn, 'running', now() + make_interval(secs => p_lease_ms / 1000), p_runner)
  ON CONFLICT (owner, message_id) DO UPDATE
     SET turn_id = EXCLUDED.turn_id, status = 'running', lease_until = EXCLUDED.lease_until, runner = EXCLUDED.runner, updated_at = now()
   WHERE tu.thread_id = EXCLUDED.thread_id
     AND (tu.turn_id = EXCLUDED.turn_id OR (tu.status <> 'done' AND NOT threadline_turn_running(tu)))
  RETURNING tu.thread_id INTO v_thread;
  IF FOUND THEN
    RETURN QUERY SELECT v_thread, true, true, false;
    RETURN;
  END IF;
  -- A concurrent first claim of the message (in another thread) the INSERT waited for is visible here.
  RETURN QUERY SELECT tu.thread_id, false, threadline_turn_running(tu), false
    FROM turns tu WHERE tu.owner = p_owner AND tu.message_id = p_message;
END;
$$;

-- A turn's opening, restated whole with the runner, and with the rule of one
-- turn per thread left to the claim (it was checked here before the claim);
-- a thread it makes says where it came from (1734040000000_thread-source.sql).
DROP FUNCTION threadline_open_turn(uuid, text, text, text, text, boolean, text, float8);
CREATE FUNCTION threadline_open_turn(
  p_thread uuid, p_owner text, p_message text, p_turn text,
  p_content text, p_escaped boolean, p_title text, p_lease_ms float8, p_runner bigint,
  p_source text, p_source_id text, p_source_metadata jsonb
) RETURNS TABLE (
  thread_id uuid, created boolean, message_count integer, claimed boolean, running boolean, user_seq bigint, summary_seq bigint,
  user_parent text, busy boolean
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_created boolean;
  v_count integer;
  v_summary bigint;
  v_thread uuid;
  v_claimed boolean;
  v_running boolean;
  v_busy boolean;
  v_seq bigint;
BEGIN
  SELECT u.created, u.message_count, u.summary_seq INTO v_created, v_count, v_summary
    FROM threadline_upsert_thread(p_thread, p_owner, p_source, p_source_id, p_source_metadata) u;
  IF NOT FOUND THEN
    RETURN;
  END IF;

  SELECT c.thread_id, c.claimed, c.running, c.busy INTO v_thread, v_claimed, v_running, v_busy
    FROM threadline_claim_turn(p_owner, p_message, p_thread, p_turn, p_lease_ms, p_runner) c;
  IF v_busy THEN
    RETURN QUERY SELECT p_thread, v_created, v_count, false, true, NULL::bigint, v_summary, NULL::text, true;
    RETURN;
  END IF;
  IF v_claimed IS NOT TRUE THEN
    RETURN QUERY SELECT v_thread, v_created, v_count, false, coalesce(v_running, false), NULL::bigint, v_summary, NULL::text, false;
    RETURN;
  END IF;

  SELECT a.seq INTO v_seq
    FROM threadline_append_user_message(p_thread, p_owner, p_message, p_turn, p_content, p_escaped, p_title) a;
  RETURN QUERY SELECT p_thread, v_created, v_count, true, true, v_seq, v_summary,
    (SELECT m.parent_message_id FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0),
    false;
END;
$$;

-- Stop, restated with the rule's new form.
CREATE OR REPLACE FUNCTION threadline_request_stop(p_thread uuid, p_owner text) RETURNS TABLE (turn_id text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_turn text;
BEGIN
  FOR v_turn IN
    UPDATE turns tu SET stop_requested_turn = tu.turn_id, updated_at = now()
     WHERE tu.thread_id = p_thread AND tu.owner = p_owner AND threadline_turn_running(tu)
    RETURNING tu.turn_id
  LOOP
    PERFORM pg_notify('threadline_stop', json_build_object('threadId', p_thread, 'turnId', v_turn)::text);
    RETURN QUERY SELECT v_turn;
  END LOOP;
END;
$$;

-- A regenerate's or an edit's opening, restated whole with the runner and
-- the rule's new form; its rules are unchanged.
DROP FUNCTION threadline_open_version(uuid, text, text, text, text, boolean, float8, text);
CREATE FUNCTION threadline_open_version(
  p_thread uuid, p_owner text, p_message text, p_turn text, p_content text, p_escaped boolean, p_lease_ms float8, p_replaces text,
  p_runner bigint
) RETURNS TABLE (
  refused text, thread_id uuid, claimed boolean, running boolean, message_count integer, summary_seq bigint,
  user_seq bigint, user_content text, user_escaped boolean, user_parent text
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  r messages%ROWTYPE;
  u messages%ROWTYPE;
  v_stored boolean;
  v_thread uuid;
  v_claimed boolean;
  v_running boolean;
  v_seq bigint;
BEGIN
  -- Under the thread's row lock: no other writer of the thread moves the path meanwhile.
  PERFORM 1 FROM threads t WHERE t.id = p_thread AND t.owner = p_owner FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT * INTO r FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_replaces AND m.part_index = 0;
  IF NOT FOUND OR r.kind = 'system_event' THEN
    RETURN QUERY SELECT 'not_found', p_thread, false, false, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text;
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM turns tu WHERE tu.thread_id = p_thread AND tu.message_id <> p_message
                AND tu.status <> 'done' AND threadline_turn_running(tu)) THEN
    RETURN QUERY SELECT 'busy', p_thread, false, true, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text;
    RETURN;
  END IF;

  IF r.kind = 'user' THEN
    IF p_message = p_replaces THEN
      RETURN QUERY SELECT 'same_id', p_thread, false, false, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text;
      RETURN;
    END IF;
    -- The new message stored already: this edit sent again, or its retried step.
    v_stored := EXISTS (SELECT 1 FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0);
    IF NOT v_stored AND NOT r.active THEN
      RETURN QUERY SELECT 'changed', p_thread, false, false, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text;
      RETURN;
    END IF;
    SELECT c.thread_id, c.claimed, c.running INTO v_thread, v_claimed, v_running
      FROM threadline_claim_turn(p_owner, p_message, p_thread, p_turn, p_lease_ms, p_runner) c;
    IF v_claimed IS NOT TRUE THEN
      RETURN QUERY SELECT NULL::text, v_thread, false, coalesce(v_running, false), 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text;
      RETURN;
    END IF;
    IF NOT v_stored THEN
      PERFORM threadline_branch(p_thread, p_owner, p_replaces);
    END IF;
    SELECT a.seq INTO v_seq FROM threadline_append_user_message(p_thread, p_owner, p_message, p_turn, p_content, p_escaped, NULL) a;
    RETURN QUERY SELECT NULL::text, p_thread, true, true, t.message_count - 1, t.summary_seq, v_seq, NULL::text, NULL::boolean,
      (SELECT m.parent_message_id FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0)
      FROM threads t WHERE t.id = p_thread;
    RETURN;
  END IF;

  -- A regenerate: p_message is the user's message the reply answers, on the
  -- path before it with no other user's message between them.
  IF NOT r.active THEN
    RETURN QUERY SELECT 'changed', p_thread, false, false, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text;
    RETURN;
  END IF;
  SELECT * INTO u FROM messages m
   WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0 AND m.kind = 'user' AND m.active AND m.seq < r.seq;
  IF NOT FOUND OR EXISTS (SELECT 1 FROM messages x WHERE x.thread_id = p_thread AND x.kind = 'user' AND x.active
                             AND x.seq > u.seq AND x.seq < r.seq) THEN
    RETURN QUERY SELECT 'not_reply', p_thread, false, false, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text;
    RETURN;
  END IF;
  -- The message's claim, taken over from its finished turn (or kept: a retried step of this one).
  UPDATE turns tu
     SET turn_id = p_turn, status = 'running', lease_until = now() + make_interval(secs => p_lease_ms / 1000), runner = p_runner,
         updated_at = now()
   WHERE tu.owner = p_owner AND tu.message_id = p_message AND tu.thread_id = p_thread
     AND (tu.turn_id = p_turn OR NOT threadline_turn_running(tu));
  IF NOT FOUND THEN
    IF EXISTS (SELECT 1 FROM turns tu WHERE tu.owner = p_owner AND tu.message_id = p_message) THEN
      -- Its turn is running: this request waits for it, like a message sent twice.
      RETURN QUERY SELECT NULL::text, p_thread, false, true, 0, NULL::bigint, NULL::bigint, NULL::text, NULL::boolean, NULL::text;
      RETURN;
    END IF;
    -- A message stored before turns were recorded.
    INSERT INTO turns (owner, message_id, thread_id, turn_id, status, lease_until, runner)
    VALUES (p_owner, p_message, p_thread, p_turn, 'running', now() + make_interval(secs => p_lease_ms / 1000), p_runner);
  END IF;
  -- What the thread held before the user's message: what this turn's model reads of it.
  RETURN QUERY SELECT NULL::text, p_thread, true, true,
    (SELECT count(*)::integer FROM messages m WHERE m.thread_id = p_thread AND m.active AND m.part_index = 0
        AND m.kind <> 'system_event' AND m.seq < u.seq),
    (SELECT max(m.seq) FROM messages m WHERE m.thread_id = p_thread AND m.active AND m.kind = 'system_event' AND m.seq < u.seq),
    u.seq, u.content, u.content_escaped, u.parent_message_id;
END;
$$;
