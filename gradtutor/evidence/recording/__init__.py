"""The recorder: what TensorFlow ran around a tape, seen through the op callback and thin wrappers on its seams."""
