"""gradtutor.cli: the `gradtutor` command."""
