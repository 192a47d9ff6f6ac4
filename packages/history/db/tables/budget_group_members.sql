-- Who is in which group: put there by an admin, or by their identity
-- provider's groups claim at sign-in (from_claim: the next sign-in may take it away).
CREATE TABLE budget_group_members (
  group_id   uuid NOT NULL REFERENCES budget_groups (id) ON DELETE CASCADE,
  person     text NOT NULL CHECK (char_length(person) <= 200),
  from_claim boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, person)
);
CREATE INDEX budget_group_members_person_idx ON budget_group_members (person);
