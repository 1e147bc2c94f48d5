"""nbgrader's Execute with its kernels started in gradtutor's sandbox (gradtutor.classroom.kernels.kernel_sandbox).

nbgrader is extended the way it is meant to be: through its configuration.
`Autograde.autograde_preprocessors` lists the preprocessors that run a
submission; `SandboxedExecute` takes the place of nbgrader's `Execute` there.
`gradtutor grade` configures its workers so (`sandbox_kernels`), with settings
an nbgrader_config.py could hold as well:

    c.KernelManager.transport = "ipc"      # a sandboxed kernel has no TCP
    c.KernelManager.ip = "/a/private/folder/kernel"
    c.Autograde.autograde_preprocessors = [
        "gradtutor.classroom.grading.sandboxed_execute.SandboxedExecute", ...nbgrader's other preprocessors...]
    c.SandboxedKernelManager.course_root = "/path/to/the/course"

(Under plain `nbgrader autograde` that is not enough: a sandboxed kernel cannot
read gradtutor's references, so its check() needs the checker a grading worker
runs for its kernels, gradtutor.classroom.grading.shared_judge.)

Everything configured for `Execute` (its timeout above all) applies to
`SandboxedExecute`: traitlets reads a class's settings under each of its base
classes' names too.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from nbgrader.preprocessors import Execute
from traitlets import Bool, Unicode, default
from traitlets.utils.importstring import import_item

from gradtutor.errors import ClassroomError
from gradtutor.messages import say

SANDBOXED_EXECUTE = f"{__name__}.SandboxedExecute"


class SandboxedKernelManager(AsyncKernelManager):
    """Starts each kernel through `python -m gradtutor.classroom.kernels.kernel_sandbox`, which fences it in."""

    course_root = Unicode(help="The nbgrader course folder whose private files the kernels may not read.").tag(
        config=True)

    warm_kernels = Unicode("", help="The Unix socket of a kernel forker (gradtutor.classroom.kernels.warm_kernels): "
                           "kernels forked there have TensorFlow imported already. Empty: start each afresh.").tag(
        config=True)

    @default("course_root")
    def _course_root_default(self) -> str:
        return os.getcwd()  # nbgrader's own default for CourseDirectory.root

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        # jupyter_client's hook for launching the kernel process differently
        from gradtutor.classroom.kernels.kernel_sandbox import hidden_paths

        if self.transport != "ipc":
            raise ClassroomError(say("classroom.nbgrader.no_tcp"))
        cwd = os.path.realpath(kw.get("cwd") or os.getcwd())
        scratch = tempfile.mkdtemp(prefix="gradtutor-kernel-scratch-")
        self._gradtutor_scratch = scratch
        env = dict(kw.get("env") or os.environ)
        env.update(TMPDIR=scratch, MPLCONFIGDIR=os.path.join(scratch, "matplotlib"),
                   KERAS_HOME=os.path.join(scratch, "keras"), IPYTHONDIR=os.path.join(scratch, "ipython"))
        kw["env"] = env
        # the kernel creates its Unix sockets beside the path configured as KernelManager.ip
        sockets = os.path.dirname(os.path.abspath(self.ip))
        spec = {"writable": [cwd, scratch, sockets], "hidden": hidden_paths(self.course_root)}
        if self.warm_kernels and self._launch_warm(kernel_cmd, env, cwd, spec):
            return
        wrapped = [sys.executable, "-m", "gradtutor.classroom.kernels.kernel_sandbox", json.dumps(spec), "--", *kernel_cmd]
        await super()._async_launch_kernel(wrapped, **kw)

    def _launch_warm(self, kernel_cmd, env: dict, cwd: str, spec: dict) -> bool:
        """Fork the kernel from the warm forker; False (and a cold start) when that cannot be done."""
        from jupyter_client.provisioning import LocalProvisioner

        from gradtutor import defaults
        from gradtutor.classroom.kernels import warm_kernels

        provisioner = self.provisioner
        if not warm_kernels.can_fork(kernel_cmd) or type(provisioner) is not LocalProvisioner:
            return False
        try:
            process = warm_kernels.launch(self.warm_kernels, kernel_cmd, env, cwd, spec,
                                          timeout=defaults.KERNEL_FORKER_TIMEOUT)
        except warm_kernels.ForkFailed as exc:
            self.log.warning("starting the kernel afresh: %s", exc)
            return False
        # what LocalProvisioner.launch_kernel records of the process it starts
        provisioner.process, provisioner.pid, provisioner.pgid = process, process.pid, process.pid
        provisioner.cwd = cwd
        self._reconcile_connection_info(provisioner.connection_info)
        return True

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        scratch = getattr(self, "_gradtutor_scratch", None)
        if scratch and not restart:
            shutil.rmtree(scratch, ignore_errors=True)


class SandboxedExecute(Execute):
    """nbgrader's Execute, its kernels made by SandboxedKernelManager; demonstrations no score needs are left out."""

    skip_demonstrations = Bool(True, help="Leave out the lesson's demonstration cells that no cell which runs "
                               "reads a name of (gradtutor.course.demonstrations); they keep the "
                               "learner's own outputs.").tag(config=True)

    def __init__(self, *args, **kwargs):
        # Execute passes kernel_manager_class=AsyncKernelManager when it is made, which beats
        # any configured KernelManager class: a subclass is where the class can be chosen.
        kwargs.setdefault("kernel_manager_class", SandboxedKernelManager)
        super().__init__(*args, **kwargs)
        self._left_out: frozenset[int] = frozenset()

    def preprocess(self, nb, resources=None, km=None):
        self._left_out, submitted = self._demonstrations_to_leave_out(nb, resources or {})
        try:
            nb, resources = super().preprocess(nb, resources, km)
        finally:
            left_out, self._left_out = self._left_out, frozenset()
        if left_out:
            from gradtutor.classroom.kernels.skip_demonstrations import keep_learner_outputs

            keep_learner_outputs(nb, left_out, submitted)
        return nb, resources

    def preprocess_cell(self, cell, resources, index):
        if index in self._left_out:
            return cell, self.resources
        return super().preprocess_cell(cell, resources, index)

    def _demonstrations_to_leave_out(self, nb, resources: dict):
        """(positions of the cells to leave out, the submitted notebook): none outside a student's autograde."""
        about = resources.get("nbgrader") or {}
        student, assignment, notebook = about.get("student"), about.get("assignment"), about.get("notebook")
        if not self.skip_demonstrations or not (student and assignment and notebook):
            return frozenset(), None
        from nbgrader.coursedir import CourseDirectory

        from gradtutor.classroom.kernels.skip_demonstrations import course_demonstrations
        from gradtutor.course.demonstrations import left_out

        coursedir = CourseDirectory(config=self.config)
        demonstrations = course_demonstrations(coursedir, assignment, f"{notebook}.ipynb")
        if not demonstrations:
            return frozenset(), None
        sources = [cell.source if cell.cell_type == "code" else None for cell in nb.cells]
        submitted = Path(coursedir.format_path(coursedir.submitted_directory, student, assignment)) / f"{notebook}.ipynb"
        return left_out(sources, demonstrations), submitted


def sandbox_kernels(config, course_root: str, warm_kernels: str = "") -> None:
    """Configure nbgrader (a traitlets Config) to run every submission's kernel in the sandbox.

    `warm_kernels`: the socket of a kernel forker, whose kernels have TensorFlow imported already.
    """
    from nbgrader.converters import Autograde

    configured = config.Autograde.get("autograde_preprocessors")
    preprocessors = list(configured if configured is not None
                         else Autograde.class_traits()["autograde_preprocessors"].default())
    classes = [import_item(p) if isinstance(p, str) else p for p in preprocessors]
    if not any(isinstance(c, type) and issubclass(c, SandboxedExecute) for c in classes):
        if Execute not in classes:
            raise ClassroomError(say("classroom.nbgrader.no_execute", sandboxed=SANDBOXED_EXECUTE))
        preprocessors[classes.index(Execute)] = SANDBOXED_EXECUTE
    config.Autograde.autograde_preprocessors = preprocessors
    config.SandboxedKernelManager.course_root = str(course_root)
    if warm_kernels:
        config.SandboxedKernelManager.warm_kernels = warm_kernels
