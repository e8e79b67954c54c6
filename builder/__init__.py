"""The build pipeline of ttt-db: enumerate the game, solve it, write the database."""

from ttt_db.build.pipeline import BuildSummary, build_database, open_or_build

__all__ = ["BuildSummary", "build_database", "open_or_build"]
