-- Up Migration

-- Search across threads matches titles as well as what was said.
CREATE INDEX threads_title_search_idx ON threads USING gin (to_tsvector('english', coalesce(title, '')));
