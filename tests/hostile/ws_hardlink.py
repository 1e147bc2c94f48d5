# files: hard-links a workspace file into its scratch folder, then writes through the link
import os
import tensorflow as tf

WORKSPACE = "@WORKSPACE@"


def grad_of_cube(x):
    for name in ("notes.txt", "helper.py"):
        link = "link-" + name
        try:
            if not os.path.exists(link):
                os.link(os.path.join(WORKSPACE, name), link)
            with open(link, "w") as fh:
                fh.write("overwritten through a hard link")
        except Exception:
            pass
    return None
