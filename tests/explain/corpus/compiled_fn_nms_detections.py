# source: https://github.com/VDIGPKU/T-SEA/issues/29 (nograd_unique_values.py's kind: "YOLOv5有NMS情况是如何让LOSS有梯度的", an attack whose loss counts the detections left after non-max suppression; here in a @tf.function step)
# expect: cause=no-gradient-op line=19
import keras
import tensorflow as tf

keras.utils.set_random_seed(11)
corners = tf.random.uniform((20, 4))
boxes = tf.concat([tf.minimum(corners[:, :2], corners[:, 2:]), tf.maximum(corners[:, :2], corners[:, 2:])], axis=1)
patch = tf.Variable(tf.random.normal((20,)))  # what the attack learns: it shifts each box's score
detector_scores = tf.random.uniform((20,))
optimizer = keras.optimizers.SGD(0.1)


@tf.function
def step():
    with tf.GradientTape() as tape:
        scores = tf.sigmoid(detector_scores + patch)
        # the boxes kept: indices, which do not move when a score moves a little
        kept = tf.image.non_max_suppression(boxes, scores, max_output_size=20, iou_threshold=0.5,
                                            score_threshold=0.5)
        loss = tf.cast(tf.size(kept), tf.float32)  # the number of detections the attack should drive down
    return tape.gradient(loss, patch)


print(step())
