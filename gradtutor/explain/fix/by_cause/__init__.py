"""The repairs of one cause each that need more than a few lines (repairs.py holds the short ones and the table):
`variables` (variable-replaced), `zero` (non-finite: the double where), `numpy_steps` (leaves-tensorflow: NumPy
steps rewritten as TensorFlow ops), `graph_gradients` (tf-gradients-eager: tf.gradients → a tape)."""
