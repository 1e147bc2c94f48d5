# files: the exercise name is bound to a tensor, not a function
import tensorflow as tf

class_gradient = 0.0
