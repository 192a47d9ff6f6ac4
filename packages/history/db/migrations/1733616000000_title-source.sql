-- Up Migration

-- Who set a thread's title: 'message' (the first words of its first message,
-- written with that message), 'model' (the title the model gave it after its
-- first reply) or 'user' (a rename). The model's title is stored only over a
-- 'message' title, in one conditional UPDATE, so a rename, even one racing
-- it, is never overwritten. Threads from before this column keep their titles
-- as they are; only a first reply asks for a title, so none of them is renamed.
ALTER TABLE threads
  ADD COLUMN title_source text NOT NULL DEFAULT 'message' CHECK (title_source IN ('message', 'model', 'user'));
