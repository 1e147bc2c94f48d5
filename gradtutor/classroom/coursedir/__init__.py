"""A course folder read as nbgrader's commands would find it, without loading nbgrader where that gives the same answer.

Loading nbgrader (its package imports its server extensions) and its SQLAlchemy gradebook costs about two
CPU-seconds, which a re-run of `gradtutor grade` with nothing new to grade would spend on nothing else:
the layout (layout), the submissions (submissions) and the gradebook's scores (gradebook_sqlite) are read
here, each handing over to nbgrader's own reading when the course is not one it reads alike.
"""
