"""gradtutor.checking: from a learner's values to a verdict and its diagnosis."""
