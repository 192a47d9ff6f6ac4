CREATE OR REPLACE FUNCTION threadline_turn_running(tu turns) RETURNS boolean
  LANGUAGE sql STABLE
  AS $$
    SELECT tu.status = 'running' AND (tu.lease_until IS NULL OR tu.lease_until >= now())
       AND (tu.runner IS NULL OR threadline_runner_alive(tu.runner))
  $$;
