"""From a learner's cells to a verdict: what needs no run, the comparison with the reference, and the diagnosis."""
