"""gradtutor.learner: check() in notebooks, hints, the workspace, the warm checker, JupyterLab."""
