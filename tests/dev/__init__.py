"""gradtutor.dev: the course's own checks, the known answers, the sweep, releasing notebooks."""
