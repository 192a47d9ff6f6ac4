-- Up Migration
-- The model that wrote a reply (`provider:model`), on each of its part rows as
-- the agent's name is, and the thread's model: the one its latest reply was
-- written with, which the page's picker starts from. Null for what was written
-- before models were recorded, and for users' messages.
ALTER TABLE messages ADD COLUMN model text CHECK (char_length(model) <= 300);
ALTER TABLE threads ADD COLUMN model text CHECK (char_length(model) <= 300);

-- Down Migration
ALTER TABLE threads DROP COLUMN model;
ALTER TABLE messages DROP COLUMN model;
