"""Do kernels forked from the warm forker behave as the kernels nbgrader starts afresh, only sooner?"""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from gradtutor.classroom.kernels.warm_kernels import ForkedKernel, can_fork

PROGRESS = "print('tensorflow' in sys.modules)"


@pytest.mark.unit
def test_only_this_python_running_ipykernel_launcher_is_forked():
    assert can_fork([sys.executable, "-m", "ipykernel_launcher", "-f", "k.json"])
    assert not can_fork(["/usr/bin/python3-other", "-m", "ipykernel_launcher", "-f", "k.json"])
    assert not can_fork([sys.executable, "-m", "some_other_kernel", "-f", "k.json"])
    assert not can_fork(["R", "--slave"])


@pytest.mark.unit
def test_a_forked_kernel_stands_in_for_popen_signals_and_end_included():
    process = subprocess.Popen(["sleep", "60"])
    kernel = ForkedKernel(process.pid)
    assert kernel.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        kernel.wait(timeout=0.1)
    kernel.send_signal(signal.SIGTERM)
    assert kernel.wait(timeout=10) is not None
    assert process.wait(timeout=10) == -signal.SIGTERM  # the signal reached the process itself
    kernel.kill()  # gone already: nothing to signal, no error


@pytest.fixture(scope="module")
def forker(tmp_path_factory):
    from gradtutor.classroom.kernels import warm_kernels

    folder = tmp_path_factory.mktemp("forker")
    path = str(folder / "forker.sock")
    process = warm_kernels.start_forker(path, str(folder / "forker.log"))
    yield path
    process.kill()
    process.wait()


def _run(tmp_path, forker_path, sources, timeout=60):
    """Run `sources` as a notebook through nbgrader's sandboxed kernel manager, kernels from the forker."""
    import nbformat
    from nbclient import NotebookClient
    from traitlets.config import Config

    from gradtutor.classroom.grading.sandboxed_execute import SandboxedKernelManager

    config = Config()
    config.KernelManager.transport = "ipc"
    (tmp_path / "sockets").mkdir(mode=0o700)
    config.KernelManager.ip = str(tmp_path / "sockets" / "kernel")
    config.SandboxedKernelManager.course_root = str(tmp_path / "course")
    config.SandboxedKernelManager.warm_kernels = forker_path
    (tmp_path / "course" / "student").mkdir(parents=True)
    (tmp_path / "course" / "gradebook.db").write_text("grades")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    client = NotebookClient(nb, kernel_manager_class=SandboxedKernelManager, config=config, timeout=timeout,
                            allow_errors=True, interrupt_on_timeout=True,
                            resources={"metadata": {"path": str(tmp_path / "course" / "student")}})
    client.execute()
    return [_shown(cell.outputs) for cell in nb.cells], client


def _shown(outputs):
    """A cell's outputs as a reader sees them: the kernel flushes its stdout on a timer, so one print may
    arrive as two stream messages ("6.0", then "\n"); consecutive pieces of one stream are one text."""
    shown, stream = [], None
    for output in outputs:
        if output.output_type == "stream" and output.name == stream:
            shown[-1] += output.text
            continue
        stream = output.name if output.output_type == "stream" else None
        shown.append(output.get("text") or output.get("ename"))
    return shown


@pytest.mark.nbgrader
def test_a_forked_kernel_has_tensorflow_loaded_and_the_managers_folder_environment_and_fence(tmp_path, forker):
    from gradtutor.isolation import landlock

    outputs, client = _run(tmp_path, forker, [
        "import sys, os, tempfile\n" + PROGRESS,
        "print(os.getcwd()); print(os.environ['TMPDIR'] == tempfile.gettempdir()); print(os.getpid() == os.getsid(0))",
        "import gradtutor.quiet\nimport tensorflow as tf\nx = tf.Variable(3.0)\n"
        "with tf.GradientTape() as tape:\n    y = x * x\nprint(float(tape.gradient(y, x)))",
        "import subprocess\nprint(subprocess.run(['echo', 'child'], capture_output=True, text=True).stdout)",
        "print(open('../gradebook.db').read())",
    ])
    assert outputs[0] == ["True\n"]  # before any import of the notebook's own
    assert outputs[1] == [f"{tmp_path / 'course' / 'student'}\nTrue\nTrue\n"]  # its folder, its scratch, its session
    assert outputs[2] == ["6.0\n"]
    assert outputs[3] == ["child\n\n"]  # its own subprocesses are its to wait for
    if landlock.abi_version() >= 1:
        assert outputs[4] == ["PermissionError"]  # the course's gradebook is fenced off, as for a cold kernel
    assert client.km is None or not client.km.has_kernel  # shut down with the notebook


@pytest.mark.nbgrader
def test_a_forked_kernel_starts_with_the_tracebacks_caches_filled_and_no_tensorflow_op_run(tmp_path, forker):
    outputs, _ = _run(tmp_path, forker, [
        "import inspect\nfrom tensorflow.python.eager import context\nfrom gradtutor.course import manifest as course\n"
        "print(context.context()._context_handle is None, 'tensorflow' in inspect._filesbymodname, "
        "course.load.cache_info().currsize)",
        "raise ValueError('shown as ever')",
        "import tensorflow as tf\nx = tf.Variable([1.0, 2.0])\nwith tf.GradientTape() as tape:\n"
        "    y = tf.reduce_sum(x * x)\nprint(tape.gradient(y, x).numpy().tolist())",
    ])
    # the forker's warm-up formatted a traceback and read the manifest, and ran no op: TF's
    # thread pools start in each kernel, after the fork (../shared/PITFALLS.md)
    assert outputs[0] == ["True True 1\n"]
    assert outputs[1] == ["ValueError"]
    assert outputs[2] == ["[2.0, 4.0]\n"]


@pytest.mark.nbgrader
def test_a_cell_past_its_time_is_interrupted_and_the_next_cell_still_runs(tmp_path, forker):
    started = time.monotonic()
    outputs, _ = _run(tmp_path, forker, ["import time\ntime.sleep(600)", "print('after')"], timeout=5)
    assert outputs == [["KeyboardInterrupt"], ["after\n"]]
    assert time.monotonic() - started < 300


@pytest.mark.nbgrader
def test_only_the_process_that_started_the_forker_gets_a_kernel(forker):
    # what a learner's kernel could try: ask the forker for an unfenced kernel of its own; it is slow to
    # send, as any process on a loaded machine can be, and still reads the refusal
    ask = ("import json, socket, time\ns = socket.socket(socket.AF_UNIX)\ns.connect(%r)\ntime.sleep(0.5)\n"
           "s.sendall(json.dumps({'argv': [], 'env': {}, 'cwd': '/', 'spec': {}}).encode() + b'\\n')\n"
           "print(s.recv(4096).decode())" % forker)
    done = subprocess.run([sys.executable, "-c", ask], capture_output=True, text=True, timeout=300)
    assert json.loads(done.stdout) == {"error": "only the grading worker may ask for kernels"}, done.stderr


@pytest.mark.nbgrader
def test_a_kernel_is_started_afresh_when_the_forker_does_not_answer(tmp_path):
    outputs, _ = _run(tmp_path, str(tmp_path / "no-forker.sock"), ["import sys\n" + PROGRESS, "print(os)"])
    assert outputs[0] == ["False\n"]  # a kernel of its own, started the usual way
    assert outputs[1] == ["NameError"]
