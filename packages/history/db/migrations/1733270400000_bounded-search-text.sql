-- Up Migration

-- Full-text search reads the first 65,536 characters of a message's text. A
-- full-text vector holds at most 1 MB, and a long reply (or a pasted document)
-- makes a bigger one: indexing the whole text would refuse the insert. 65,536
-- characters make a vector well under that bound whatever they hold (under 7
-- bytes of vector per character at worst), and a search still finds what the
-- beginning of a message says. One function, so that the index and the
-- queries that must match it cannot drift apart.
CREATE FUNCTION threadline_search_vector(content text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT to_tsvector('english'::regconfig, left(content, 65536)) $$;

DROP INDEX messages_text_search_idx;
CREATE INDEX messages_text_search_idx ON messages USING gin (threadline_search_vector(content))
  WHERE kind IN ('user', 'assistant');

-- Down Migration

DROP INDEX messages_text_search_idx;
CREATE INDEX messages_text_search_idx ON messages USING gin (to_tsvector('english', content))
  WHERE kind IN ('user', 'assistant');
DROP FUNCTION threadline_search_vector(text);
