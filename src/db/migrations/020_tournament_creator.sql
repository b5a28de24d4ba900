-- A user may have only a few arenas upcoming or running (TOURNAMENT_LIMIT): creating one counts
-- the creator's open ones, by this index rather than by reading every tournament.
CREATE INDEX tournaments_open_creator_idx ON tournaments (creator_id) WHERE status <> 'finished';
