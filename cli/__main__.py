"""`python -m cli` runs the ttt-db command line."""

from cli import main

main()
