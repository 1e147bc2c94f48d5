# files: creates folders, links, fifos and a database inside the learner's workspace
import os
import sqlite3
import tensorflow as tf

WORKSPACE = "@WORKSPACE@"


def class_gradient(model, inp, k):
    attempts = [
        lambda: os.mkdir(os.path.join(WORKSPACE, "made-by-mkdir")),
        lambda: os.makedirs(os.path.join(WORKSPACE, "a", "b")),
        lambda: os.symlink("/etc/passwd", os.path.join(WORKSPACE, "a-symlink")),
        lambda: os.mkfifo(os.path.join(WORKSPACE, "a-fifo")),
        lambda: sqlite3.connect(os.path.join(WORKSPACE, "db.sqlite")).execute("create table t (x)"),
    ]
    for attempt in attempts:
        try:
            attempt()
        except Exception:
            pass
    return None
