"""Grading and instant feedback on a Dask cluster: the task, the worker's grading host, what travels between them."""
