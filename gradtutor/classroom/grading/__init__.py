"""Autograding with nbgrader: the course folder, grading processes and their pool, the re-check, the gradebook read back."""
