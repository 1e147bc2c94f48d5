"""gradtutor.isolation: running learner code apart, and the hostile corpus against it."""
