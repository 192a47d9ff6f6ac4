-- Groups of people an admin sets one budget for.
CREATE TABLE budget_groups (
  id         uuid PRIMARY KEY,
  name       text NOT NULL UNIQUE CHECK (char_length(name) BETWEEN 1 AND 100),
  created_at timestamptz NOT NULL DEFAULT now()
);
