"""`python -m ttt_db.cli` runs the ttt-db command line."""

from ttt_db.cli import main

main()
