-- A memory (lib/memory/): a short fact about a person, with where it was learned.
-- A memory. `source_thread_id` and `source_message_id`: the message it was
-- learned from (null: added by hand); the thread's row may go (its memories
-- stay, `source_thread_deleted` set). A deleted memory keeps its row as a
-- tombstone (state 'deleted', its text gone), so the message it came from
-- never teaches it again.
CREATE TABLE memories (
  id                    uuid PRIMARY KEY,
  owner                 text NOT NULL CHECK (char_length(owner) <= 200),
  text                  text NOT NULL CHECK (char_length(text) <= 500),
  state                 text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'deleted')),
  source_thread_id      uuid,
  source_message_id     text CHECK (char_length(source_message_id) <= 256),
  source_thread_deleted boolean NOT NULL DEFAULT false,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  last_used_at          timestamptz,
  -- What the ranking reads: the words of the text, in no one language.
  words                 tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED,
  -- A tombstone's words, folded and hashed: its source message never teaches them again.
  forgotten             text,
  CHECK ((source_thread_id IS NULL) = (source_message_id IS NULL)),
  CHECK (state = 'active' OR text = ''),
  CHECK (forgotten IS NULL OR state = 'deleted')
);
-- A person's memories, the newest first.
CREATE INDEX memories_owner_idx ON memories (owner, created_at DESC) WHERE state = 'active';
-- Found by words.
CREATE INDEX memories_words_idx ON memories USING gin (words) WHERE state = 'active';
-- A thread's, marked when it goes; and a message's, never learned twice.
CREATE INDEX memories_source_idx ON memories (source_thread_id, source_message_id) WHERE source_thread_id IS NOT NULL;
-- Whether a message taught words since deleted.
CREATE INDEX memories_forgotten_idx ON memories (owner, source_message_id, forgotten) WHERE state = 'deleted';
