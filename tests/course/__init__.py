"""gradtutor.course: the manifest, seeds and secret, reading a learner's file, the reference answers."""
