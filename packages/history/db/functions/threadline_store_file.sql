-- Stores an owner's upload once per content, within their storage quota
-- (p_quota bytes; null: none). The owner's stores take turns (an advisory
-- lock on the owner for the transaction), so uploads arriving at once on
-- any number of servers cannot together pass a sum that has room for one:
-- the quota is never passed. The same bytes again are the file they hold
-- already (its wait to be sent starts again) and take no more room, whatever
-- the quota says now. A PDF's text starts 'pending' (read later, off the
-- request path). Outcomes: 'stored', 'exists', or 'over_quota' (nothing
-- stored; `used` says how much their files take).
CREATE OR REPLACE FUNCTION threadline_store_file(
  p_id uuid, p_owner text, p_sha256 bytea, p_media_type text, p_name text, p_content bytea, p_quota bigint)
RETURNS TABLE (outcome text, id uuid, name text, media_type text, size integer, text_state text, used bigint)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_used bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('threadline_files:' || p_owner, 0));
  RETURN QUERY
    UPDATE files f SET uploaded_at = now() WHERE f.owner = p_owner AND f.sha256 = p_sha256
    RETURNING 'exists', f.id, f.name, f.media_type, f.size, f.text_state, NULL::bigint;
  IF FOUND THEN RETURN; END IF;
  IF p_quota IS NOT NULL THEN
    SELECT coalesce(sum(f.size), 0) INTO v_used FROM files f WHERE f.owner = p_owner;
    IF v_used + octet_length(p_content) > p_quota THEN
      RETURN QUERY SELECT 'over_quota', NULL::uuid, NULL::text, NULL::text, NULL::integer, NULL::text, v_used;
      RETURN;
    END IF;
  END IF;
  RETURN QUERY
    INSERT INTO files (id, owner, sha256, media_type, size, name, content, text_state)
    VALUES (p_id, p_owner, p_sha256, p_media_type, octet_length(p_content), p_name, p_content,
            CASE WHEN p_media_type = 'application/pdf' THEN 'pending' END)
    RETURNING 'stored', files.id, files.name, files.media_type, files.size, files.text_state, NULL::bigint;
END;
$$;
