-- Up Migration

-- The turn's storage rules, each written once, as functions of the database:
-- threadline_open_turn (a turn's opening in one round trip) is built from
-- them, and the adapter's single hooks (createThread, claimTurn,
-- appendUserMessage) and the thread page's "is a reply being written" call
-- them too. A rule that lived in TypeScript strings as well as here could
-- drift from the copy in the function; in the database there is one copy,
-- and changing a rule is one migration.

-- Whether a turn is still running: its runner's lease is live, or it has none
-- (a durable run holds the turn until it finishes it).
CREATE FUNCTION threadline_turn_running(p_status text, p_lease_until timestamptz) RETURNS boolean
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT p_status = 'running' AND (p_lease_until IS NULL OR p_lease_until >= now()) $$;

-- The thread, created or kept (an upsert of its id), never another owner's:
-- no row for one. `created` tells a new thread from one that was there.
CREATE FUNCTION threadline_upsert_thread(p_thread uuid, p_owner text)
RETURNS TABLE (created boolean, message_count integer, summary_seq bigint, next_seq bigint)
LANGUAGE sql AS $$
  INSERT INTO threads AS t (id, owner) VALUES (p_thread, p_owner)
  ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id WHERE t.owner = EXCLUDED.owner
  RETURNING (t.xmax = 0), t.message_count, t.summary_seq, t.next_seq
$$;

-- Claims the answering of a user's message (its client id, unique per owner)
-- for turn p_turn in thread p_thread. Granted when no turn has it, when it is
-- this turn's already (a retried step, a resend of the same request), or when
-- its turn is neither done nor running (it failed, or its runner died and the
-- lease ran out); never across threads. Otherwise: the thread of the turn
-- that has it, and whether that turn is running. p_lease_ms null: held until
-- finished.
CREATE FUNCTION threadline_claim_turn(p_owner text, p_message text, p_thread uuid, p_turn text, p_lease_ms float8)
RETURNS TABLE (thread_id uuid, claimed boolean, running boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_thread uuid;
BEGIN
  INSERT INTO turns AS tu (owner, message_id, thread_id, turn_id, status, lease_until)
  VALUES (p_owner, p_message, p_thread, p_turn, 'running', now() + make_interval(secs => p_lease_ms / 1000))
  ON CONFLICT (owner, message_id) DO UPDATE
     SET turn_id = EXCLUDED.turn_id, status = 'running', lease_until = EXCLUDED.lease_until, updated_at = now()
   WHERE tu.thread_id = EXCLUDED.thread_id
     AND (tu.turn_id = EXCLUDED.turn_id OR (tu.status <> 'done' AND NOT threadline_turn_running(tu.status, tu.lease_until)))
  RETURNING tu.thread_id INTO v_thread;
  IF FOUND THEN
    RETURN QUERY SELECT v_thread, true, true;
    RETURN;
  END IF;
  -- A statement of a plpgsql function sees what committed before it began: a
  -- concurrent first claim the INSERT waited for is visible here.
  RETURN QUERY SELECT tu.thread_id, false, threadline_turn_running(tu.status, tu.lease_until)
    FROM turns tu WHERE tu.owner = p_owner AND tu.message_id = p_message;
END;
$$;

-- The user's message, stored once, at the thread's next seq, under the
-- thread's row lock (a duplicate sent at once waits for it, then finds the
-- first one's row). Returns its seq and the turn that stored it (another
-- turn's: a duplicate; this turn's: a retry, or an interrupted turn taken
-- over); no row when the thread is not the owner's.
CREATE FUNCTION threadline_append_user_message(
  p_thread uuid, p_owner text, p_message text, p_turn text, p_content text, p_escaped boolean, p_title text
) RETURNS TABLE (seq bigint, turn_id text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_next bigint;
  v_seq bigint;
  v_turn text;
BEGIN
  SELECT t.next_seq INTO v_next FROM threads t WHERE t.id = p_thread AND t.owner = p_owner FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT m.seq, m.turn_id INTO v_seq, v_turn
    FROM messages m WHERE m.thread_id = p_thread AND m.message_id = p_message AND m.part_index = 0;
  IF FOUND THEN
    RETURN QUERY SELECT v_seq, v_turn;
    RETURN;
  END IF;
  INSERT INTO messages (thread_id, seq, message_id, kind, content, content_escaped, turn_id)
  VALUES (p_thread, v_next, p_message, 'user', p_content, p_escaped, p_turn);
  UPDATE threads
     SET next_seq = next_seq + 1, message_count = message_count + 1, updated_at = now(), title = coalesce(title, p_title)
   WHERE id = p_thread;
  RETURN QUERY SELECT v_next, p_turn;
END;
$$;

-- A turn's opening in one round trip, now built from the rules above: the
-- thread, the claim, then the user's message. Returns no row for another
-- owner's thread; `claimed` false with the thread of the turn that has the
-- message otherwise (`running`: that turn is alive).
CREATE OR REPLACE FUNCTION threadline_open_turn(
  p_thread uuid, p_owner text, p_message text, p_turn text,
  p_content text, p_escaped boolean, p_title text, p_lease_ms float8
) RETURNS TABLE (
  thread_id uuid, created boolean, message_count integer, claimed boolean, running boolean, user_seq bigint, summary_seq bigint
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_created boolean;
  v_count integer;
  v_summary bigint;
  v_thread uuid;
  v_claimed boolean;
  v_running boolean;
  v_seq bigint;
BEGIN
  SELECT u.created, u.message_count, u.summary_seq INTO v_created, v_count, v_summary
    FROM threadline_upsert_thread(p_thread, p_owner) u;
  IF NOT FOUND THEN
    RETURN;
  END IF;

  SELECT c.thread_id, c.claimed, c.running INTO v_thread, v_claimed, v_running
    FROM threadline_claim_turn(p_owner, p_message, p_thread, p_turn, p_lease_ms) c;
  IF v_claimed IS NOT TRUE THEN
    RETURN QUERY SELECT v_thread, v_created, v_count, false, coalesce(v_running, false), NULL::bigint, v_summary;
    RETURN;
  END IF;

  SELECT a.seq INTO v_seq
    FROM threadline_append_user_message(p_thread, p_owner, p_message, p_turn, p_content, p_escaped, p_title) a;
  RETURN QUERY SELECT p_thread, v_created, v_count, true, true, v_seq, v_summary;
END;
$$;
