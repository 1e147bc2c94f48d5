"""nbgrader runs submissions with SandboxedExecute because its configuration says so (no module patched)."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.nbgrader

pytest.importorskip("nbgrader")


def _configured(tmp_path, **autograde):
    from traitlets.config import Config

    from gradtutor.classroom.grading.sandboxed_execute import sandbox_kernels

    config = Config()
    config.KernelManager.transport = "ipc"
    config.KernelManager.ip = str(tmp_path / "sockets" / "kernel")
    config.Execute.timeout = 123
    for name, value in autograde.items():
        config.Autograde[name] = value
    sandbox_kernels(config, str(tmp_path / "course"))
    return config


def test_autograde_runs_sandboxed_execute_with_the_execute_settings_and_the_sandboxed_kernel_manager(tmp_path):
    import nbgrader.preprocessors.execute
    from jupyter_client.manager import AsyncKernelManager
    from nbconvert.exporters import NotebookExporter
    from nbgrader.converters import Autograde
    from nbgrader.preprocessors import Execute

    from gradtutor.classroom.grading.sandboxed_execute import SandboxedExecute, SandboxedKernelManager

    config = _configured(tmp_path)
    default = Autograde.class_traits()["autograde_preprocessors"].default()
    assert config.Autograde.autograde_preprocessors[1:] == default[1:]  # only Execute is replaced
    exporter = NotebookExporter(config=config)
    exporter._preprocessors = []
    for preprocessor in config.Autograde.autograde_preprocessors:  # as nbgrader's converter registers them
        exporter.register_preprocessor(preprocessor)
    execute = exporter._preprocessors[0]
    assert type(execute) is SandboxedExecute and execute.timeout == 123
    assert execute.kernel_manager_class is SandboxedKernelManager
    manager = execute.kernel_manager_class(config=execute.config)  # as nbclient makes it
    assert manager.course_root == str(tmp_path / "course") and manager.transport == "ipc"
    assert nbgrader.preprocessors.execute.AsyncKernelManager is AsyncKernelManager  # nothing patched
    assert Execute(config=config).kernel_manager_class is AsyncKernelManager


def test_an_instructors_own_list_keeps_its_order_and_names(tmp_path):
    config = _configured(tmp_path, autograde_preprocessors=["nbgrader.preprocessors.IgnorePattern",
                                                            "nbgrader.preprocessors.Execute"])
    assert config.Autograde.autograde_preprocessors == ["nbgrader.preprocessors.IgnorePattern",
                                                        "gradtutor.classroom.grading.sandboxed_execute.SandboxedExecute"]


def test_a_list_without_a_kernel_runner_is_refused(tmp_path):
    from gradtutor.errors import ClassroomError

    with pytest.raises(ClassroomError, match="no nbgrader Execute"):
        _configured(tmp_path, autograde_preprocessors=["nbgrader.preprocessors.IgnorePattern"])
