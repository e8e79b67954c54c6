"""`python -m cli` runs the ttt-db command line."""

from cli.app import main

main()
