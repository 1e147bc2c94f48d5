# files: deletes and overwrites through TensorFlow's own file system (tf.io), not Python's
import os
import tensorflow as tf

WORKSPACE = "@WORKSPACE@"


def input_gradient(model, x, y):
    attempts = [
        lambda: tf.io.write_file(os.path.join(WORKSPACE, "lesson2", "lesson2.ipynb"), "overwritten"),
        lambda: tf.io.gfile.remove(os.path.join(WORKSPACE, "notes.txt")),
        lambda: tf.io.gfile.rename(os.path.join(WORKSPACE, "helper.py"), os.path.join(WORKSPACE, "helper.bak")),
        lambda: tf.io.gfile.rmtree(os.path.join(WORKSPACE, "data")),
        lambda: tf.io.gfile.makedirs(os.path.join(WORKSPACE, "created_by_tf")),
    ]
    for attempt in attempts:
        try:
            attempt()
        except Exception:
            pass
    return None
