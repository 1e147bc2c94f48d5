"""Grades to and students from an LMS: the gradebook exported, a roster imported."""
