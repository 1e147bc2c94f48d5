"""What a recording says: why a gradient came back None, zero or non-finite, the line where the path broke, and the words for it."""
