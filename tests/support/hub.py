"""A real JupyterHub on 127.0.0.1 with real local accounts, for tests/classroom/test_hub.py.

The hub (pip `jupyterhub`, Makefile's dev install) runs as root with configurable-http-proxy from
npm (`make hub`, in build/hub). Each account's server is `jupyterhub.singleuser` on a Python that
every account may run: this venv's interpreter may live where only root can read (a pyenv under
/root), so the accounts get a venv on Debian's /usr/bin/python3 (the same 3.11) whose one .pth adds
this venv's site-packages, and whose share/ and etc/ Jupyter folders are this venv's (Lab's
assets, nbgrader's lab and server extensions). The course's kernel is installed into that venv,
so it runs on the accounts' Python too. Accounts are made with useradd and removed with userdel -r,
their processes ended by pid, whatever happened.
"""
from __future__ import annotations

import contextlib
import json
import os
import pwd
import secrets
import signal
import socket
import stat
import subprocess
import sys
import sysconfig
import time
import urllib.request
from pathlib import Path

from tests.support import REPO

PROXY = REPO / "build" / "hub" / "node_modules" / ".bin" / "configurable-http-proxy"
# soupsieve 2, ahead of this venv's: Debian 12's Python 3.11.2 mis-compiles the possessive quantifiers of
# later ones, and `nbgrader generate_feedback` fails (the Makefile's `hub` target says more)
DEBIAN_SITE = REPO / "build" / "hub" / "site-debian-python"
SYSTEM_PYTHON = Path("/usr/bin/python3")
SCRIPTS = {"alembic": "alembic.config:main", "nbgrader": "nbgrader.apps.nbgraderapp:main",
           "gradtutor": "gradtutor.cli:run", "jupyter": "jupyter_core.command:main"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def passable_to_everyone(path: Path):
    """Every folder above `path` lets other accounts through (o+x: pass, not list) while the test runs, each
    folder's own mode put back afterwards: a checkout may sit below a folder that is root's alone (/root is 700)."""
    changed = []
    try:
        for folder in reversed(path.parents):
            mode = stat.S_IMODE(folder.stat().st_mode)
            if not mode & 0o001:
                folder.chmod(mode | 0o001)
                changed.append((folder, mode))
        yield
    finally:
        for folder, mode in reversed(changed):
            folder.chmod(mode)


def readable_by_everyone(path: Path) -> bool:
    """Every folder up to `path` lets other accounts through, and `path` itself can be read."""
    for folder in [path, *path.parents]:
        if not folder.stat().st_mode & 0o005:
            return False
    return True


def accounts_python(root: Path) -> Path:
    """A venv on /usr/bin/python3 that sees this venv's packages and Jupyter folders; its python."""
    venv = root / "py"
    subprocess.run([str(SYSTEM_PYTHON), "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    site = Path(sysconfig.get_paths()["purelib"])
    (venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages" /
     "gradtutor-venv.pth").write_text(f"import site, sys; sys.path.insert(0, {str(DEBIAN_SITE)!r}); "
                                    f"site.addsitedir({str(site)!r})\n")
    (venv / "share" / "jupyter").mkdir(parents=True)
    for name in ("lab", "labextensions", "nbconvert"):  # Lab's assets, nbgrader's extension, feedback templates
        (venv / "share" / "jupyter" / name).symlink_to(Path(sys.prefix) / "share" / "jupyter" / name)
    (venv / "etc").symlink_to(Path(sys.prefix) / "etc")
    python = venv / "bin" / "python"
    for script, entry in SCRIPTS.items():  # nbgrader runs `alembic` from PATH; the docs name the others
        path = venv / "bin" / script
        module, function = entry.split(":")
        path.write_text(f"#!{python}\nimport sys\nfrom {module} import {function}\nsys.exit({function}())\n")
        path.chmod(0o755)
    subprocess.run([str(python), "-c", "from gradtutor.learner.lab import ensure_kernel; ensure_kernel()"], check=True,
                   timeout=300, capture_output=True)
    return python


def add_account(name: str) -> None:
    subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", name], check=True, timeout=60)


def quiet_lab(name: str) -> None:
    """The account's Lab asks nothing about Jupyter's news (a dialog over the screenshots; a fetch from the web)."""
    account = pwd.getpwnam(name)
    settings = Path(account.pw_dir) / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false",
                                                                          "checkForUpdates": False}))
    for path in [settings / "notification.jupyterlab-settings", settings, *settings.parents]:
        if path == Path(account.pw_dir):
            break
        os.chown(path, account.pw_uid, account.pw_gid)


def remove_account(name: str) -> None:
    """End what still runs as `name` (by pid), then userdel -r."""
    try:
        uid = pwd.getpwnam(name).pw_uid
    except KeyError:
        return
    for _ in range(50):
        left = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _owner(p) == uid]
        if not left:
            break
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.1)
    subprocess.run(["userdel", "--remove", name], timeout=60, capture_output=True)


def _owner(proc: Path) -> int | None:
    try:
        return proc.stat().st_uid
    except OSError:
        return None


def as_account(name: str, args: list[str], cwd: Path, env: dict, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run `args` as the local account `name` (runuser), with its own HOME and USER."""
    home = pwd.getpwnam(name).pw_dir
    done = subprocess.run(["runuser", "-u", name, "--", "env", f"HOME={home}", f"USER={name}", f"LOGNAME={name}",
                           *[f"{k}={v}" for k, v in env.items()], *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{' '.join(args)} as {name}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def hub_config(root: Path, python: Path, users: dict[str, str], service_token: str, password: str,
               environment: dict) -> tuple[Path, str]:
    """jupyterhub_config.py for the test (the one docs/instructor.md shows, with the test's paths); its URL."""
    port, hub_port, api_port = free_port(), free_port(), free_port()
    instructor = next(name for name, role in users.items() if role == "instructor")
    config = root / "jupyterhub_config.py"
    config.write_text(f"""\
c = get_config()  # noqa
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{str(PROXY)!r}]
c.JupyterHub.db_url = "sqlite:///{root / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = {str(root / 'jupyterhub_cookie_secret')!r}
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {password!r}
c.Authenticator.allowed_users = {set(users)!r}
c.Authenticator.admin_users = {{{instructor!r}}}
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [{str(python)!r}, "-m", "jupyterhub.singleuser"]
c.Spawner.ip = "127.0.0.1"
c.Spawner.default_url = "/lab"
c.Spawner.args = ["--MappingKernelManager.default_kernel_name=gradtutor"]
c.Spawner.environment = {environment!r}
c.Spawner.start_timeout = 240
c.Spawner.http_timeout = 240
c.JupyterHub.services = [{{"name": "course-admin", "api_token": {service_token!r}}}]
c.JupyterHub.load_roles = [{{"name": "course-admin", "services": ["course-admin"],
                            "scopes": ["admin:users", "admin:servers", "tokens", "access:servers"]}}]
""")
    return config, f"http://127.0.0.1:{port}"


class Hub:
    """The hub process and its REST API (the service token's admin scopes)."""

    def __init__(self, root: Path, config: Path, url: str, token: str):
        self.url, self.token = url, token
        self.log = open(root / "hub.log", "w+")
        self.process = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)], cwd=root,
                                        stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 120
        while True:
            try:
                self.api("GET", "/hub/api/")
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    log = self.tail()
                    self.stop([])  # the caller gets no Hub to stop
                    raise AssertionError(f"the hub did not come up:\n{log}") from None
                time.sleep(0.5)

    def tail(self) -> str:
        self.log.flush()
        return (self.log.name and Path(self.log.name).read_text()[-6000:])

    def api(self, method: str, path: str, body=None, token: str | None = None, form: dict | None = None):
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Authorization": f"token {token or self.token}"}
        if form is not None:
            from urllib.parse import urlencode
            path = f"{path}?{urlencode(form)}"
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        with urllib.request.urlopen(request, timeout=300) as answer:
            text = answer.read().decode()
        return json.loads(text) if text.strip() else None

    def pids(self) -> set[int]:
        """The hub's and its proxy's (started in a session of its own, its pid in the hub's folder)."""
        pid_file = Path(self.log.name).parent / "jupyterhub-proxy.pid"
        proxy = pid_file.read_text().strip() if pid_file.is_file() else ""
        return {self.process.pid} | ({int(proxy)} if proxy.isdigit() else set())

    def start_servers(self, names: list[str], timeout: float = 240) -> None:
        for name in names:
            self.api("POST", f"/hub/api/users/{name}/server")
        deadline = time.monotonic() + timeout
        waiting = set(names)
        while waiting:
            for name in sorted(waiting):
                if self.api("GET", f"/hub/api/users/{name}").get("servers", {}).get("", {}).get("ready"):
                    waiting.discard(name)
            assert time.monotonic() < deadline, f"servers of {sorted(waiting)} not ready:\n{self.tail()}"
            time.sleep(1)

    def user_token(self, name: str) -> str:
        return self.api("POST", f"/hub/api/users/{name}/tokens", {"note": "test", "expires_in": 3600})["token"]

    def stop(self, names: list[str]) -> None:
        for name in names:
            try:
                self.api("DELETE", f"/hub/api/users/{name}/server")
            except OSError:
                pass
        started = self.pids()
        self.process.send_signal(signal.SIGTERM)  # the hub stops its proxy too
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        for pid in started - {self.process.pid}:  # the proxy, if the hub could not stop it (and the pid is still its)
            try:
                if b"configurable-http-proxy" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    os.kill(pid, signal.SIGKILL)
            except (OSError, ProcessLookupError):
                pass
        self.log.close()


def listening(uids: set[int], pids: set[int]) -> dict[str, set[str]]:
    """Every TCP socket listening in these processes or those of these accounts: "pid command" → {"address:port"}."""
    sockets = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A":  # LISTEN
                host, port = fields[1].split(":")
                raw = bytes.fromhex(host)
                words = [raw[i:i + 4][::-1] for i in range(0, len(raw), 4)]  # each 32-bit word little-endian
                address = socket.inet_ntop(socket.AF_INET if len(raw) == 4 else socket.AF_INET6, b"".join(words))
                sockets[fields[9]] = f"{address}:{int(port, 16)}"
    found: dict[str, set[str]] = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or (_owner(proc) not in uids and int(proc.name) not in pids):
            continue
        try:
            inodes = {os.readlink(fd)[8:-1] for fd in (proc / "fd").iterdir() if os.readlink(fd).startswith("socket:[")}
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:120]
        except OSError:
            continue
        for inode in inodes & set(sockets):
            found.setdefault(f"{proc.name} {command}", set()).add(sockets[inode])
    return found


def new_names(roles: list[str]) -> dict[str, str]:
    """Fresh account names (never an existing account's): name → role."""
    tag = secrets.token_hex(3)
    return {f"gt{role[:4]}{i}{tag}": role for i, role in enumerate(roles)}
