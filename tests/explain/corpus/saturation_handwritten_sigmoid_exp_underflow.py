# source: https://github.com/s-4-m-a-n/365-days-of-ML-challange (its "Vanishing Gradient problem" notebook: a logistic regression whose sigmoid, written as 1 / (1 + exp(-z)), gets logits in the hundreds from positive initial weights; exp(-z) rounds to 0 and the gradients are exactly zero)
# expect: cause=saturation line=19
import numpy as np
import tensorflow as tf

tf.random.set_seed(4)
rng = np.random.default_rng(4)

NUM_CLASSES = 10
x_train = tf.constant(rng.integers(0, 256, size=(784, 2000)).astype("float32") / 255.0)
y_train = tf.constant(rng.integers(0, NUM_CLASSES, size=(2000,)))

def softmax(x):
    max_logits = tf.reduce_max(x, axis=0, keepdims=True)
    ex_x = tf.math.exp(x - max_logits)
    return ex_x / tf.reduce_sum(ex_x, axis=0, keepdims=True)

def sigmoid(z):
    return 1 / (1 + tf.math.exp(-z))

def sparse_categorical_crossentropy_loss(y_true, y_pred):
    one_hot_y_true = tf.transpose(tf.one_hot(y_true, depth=y_pred.shape[0]))
    y_pred = tf.clip_by_value(y_pred, 1e-7, 1 - 1e-7)
    losses = -tf.reduce_sum(one_hot_y_true * tf.math.log(y_pred), axis=0)
    return tf.reduce_mean(losses)

class MultiClassLogisticRegression(tf.Module):
    def __init__(self, n_classes, name=None):
        super().__init__(name=name)
        self.is_built = False
        self.n_class = n_classes

    def build(self, num_features):
        self.weights = tf.Variable(tf.random.uniform([self.n_class, num_features]), name="weights")
        self.bias = tf.Variable(tf.zeros([self.n_class, 1]), name="bias")

    def __call__(self, x):
        if not self.is_built:
            self.build(x.shape[0])
            self.is_built = True
        logits = self.weights @ x + self.bias
        sigmoid_out = sigmoid(logits)
        return softmax(sigmoid_out)

def train(model, x_train, y_train, learning_rate=0.01):
    with tf.GradientTape() as tape:
        y_pred = model(x_train)
        loss = sparse_categorical_crossentropy_loss(y_train, y_pred)
    dw, db = tape.gradient(loss, [model.weights, model.bias])
    print("max |dL/dw|:", float(tf.reduce_max(tf.abs(dw))))
    model.weights.assign_sub(learning_rate * dw)
    model.bias.assign_sub(learning_rate * db)
    return loss

model = MultiClassLogisticRegression(NUM_CLASSES)
for epoch in range(3):
    loss = train(model, x_train, y_train, 0.1)
    print(f"EPOCH: {epoch+1} --- loss: {float(loss)}")
