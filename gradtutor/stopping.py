"""How a long-running command (`gradtutor lab`, `classroom serve`) is stopped: by the signals a user or a service
manager sends, whatever the process started with.

Python raises KeyboardInterrupt on Ctrl-C only if SIGINT was at its default when the process started. A
background job of a non-interactive shell (`cmd &` in a script, a test runner's child) starts with SIGINT
ignored, and then Ctrl-C or `kill -INT` did nothing; SIGTERM (how `kill` and JupyterHub stop a service)
would end the process without its clean-up. So the handlers are set here, explicitly.
"""
from __future__ import annotations

import signal


def interrupt_on(signals: tuple[signal.Signals, ...]) -> None:
    """Each of `signals` raises KeyboardInterrupt once; after the first, all are ignored, so the clean-up that
    the KeyboardInterrupt starts (stopping a server, closing a checker) is not cut short by a second Ctrl-C."""
    def stop(number, frame):
        ignore(signals)
        raise KeyboardInterrupt

    for each in signals:
        signal.signal(each, stop)


def ignore(signals: tuple[signal.Signals, ...]) -> None:
    """From now on `signals` do nothing: stopping has begun."""
    for each in signals:
        signal.signal(each, signal.SIG_IGN)
