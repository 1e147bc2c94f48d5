"""gradtutor.classroom: nbgrader grading, its kernels, Dask, the class report, feedback, LMS."""
