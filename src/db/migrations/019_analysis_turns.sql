-- Analysis serves players in turn (claimAnalysis in src/db/analysis.ts): when each player last had
-- one of their games claimed for analysis. A job waits behind the jobs of players served longer
-- ago, so one player's many long games cannot hold back everyone else's.
CREATE TABLE analysis_turns (
  user_id   uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  served_at timestamptz NOT NULL
);
