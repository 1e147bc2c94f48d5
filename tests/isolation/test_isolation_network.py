"""Does each layer of gradtutor.isolation.network cut a process off the network, and both together?

Each case runs in a fresh process (the fence cannot be lifted once applied) that tries a TCP
connection and a UDP datagram to a listener this test holds open on 127.0.0.1.
"""
from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest

from gradtutor.isolation import landlock

pytestmark = pytest.mark.unit

PROBE = '''
import json, socket, sys
from gradtutor.isolation import network
held = network.fence(use_landlock={landlock}, use_namespace={namespace})
out = {{"held": held}}
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=5).close()
    out["tcp"] = "connected"
except OSError as exc:
    out["tcp"] = type(exc).__name__
try:
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", {port}))
    out["udp"] = "sent"
except OSError as exc:
    out["udp"] = type(exc).__name__
print(json.dumps(out))
'''


@pytest.fixture()
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    yield server.getsockname()[1]
    server.close()


def _probe(port: int, landlock_on: bool, namespace_on: bool) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE.format(port=port, landlock=landlock_on,
                                                              namespace=namespace_on)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_without_a_fence_the_listener_is_reachable(listener):
    assert _probe(listener, False, False) == {"held": [], "tcp": "connected", "udp": "sent"}


def test_landlock_refuses_tcp(listener):
    assert landlock.abi_version() >= 4, "this kernel has no Landlock network rules (Linux 6.7+)"
    out = _probe(listener, True, False)
    assert out["held"] == [f"Landlock ABI {landlock.abi_version()} (no TCP)"]
    assert out["tcp"] == "PermissionError"
    assert out["udp"] == "sent"  # Landlock has no UDP rules: the namespace is the layer for that


def test_a_network_namespace_leaves_no_address_reachable(listener):
    out = _probe(listener, False, True)
    assert out["held"] == ["a network namespace of its own (no interfaces)"], out
    assert out["tcp"] == out["udp"] == "OSError"  # ENETUNREACH: not even this machine's 127.0.0.1


def test_both_layers_together(listener):
    out = _probe(listener, True, True)
    assert len(out["held"]) == 2 and out["tcp"] == "PermissionError" and out["udp"] == "OSError", out
