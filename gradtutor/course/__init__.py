"""The course as data: its manifest (course.toml) and schema, seeds and the hidden-input secret, reading a learner's file, and the reference answers."""
