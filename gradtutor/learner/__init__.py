"""What a learner uses: check() in notebooks and its judge, hints, their workspace and state, `gradtutor watch` and `lab`, and the warm checker behind `gradtutor check`."""
