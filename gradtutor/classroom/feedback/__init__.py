"""Feedback at the moment of submission, beside nbgrader's exchange (`gradtutor classroom serve`)."""
