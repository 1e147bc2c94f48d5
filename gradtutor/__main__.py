"""`python -m gradtutor` is the `gradtutor` command."""
from gradtutor.cli import run

run()
