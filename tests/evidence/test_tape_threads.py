"""Which tapes recorded an op (graph.Graph.tapes_here): TensorFlow's tape stack is per thread, so an op another thread
runs while a tape records here (a tf.distribute replica's step, a Python thread calling the model) was recorded by none
of this thread's tapes, and a tape opened in that thread records only there.

No TensorFlow: the tapes are plain objects with the field the graph sets (`thread`), the threads real ones.
"""
from __future__ import annotations

import threading
import types

import numpy as np
import pytest

from gradtutor.evidence.recording.graph import Graph

pytestmark = pytest.mark.unit


def _in_thread(function):
    out = []
    worker = threading.Thread(target=lambda: out.append(function()))
    worker.start()
    worker.join()
    return out[0]


def _tapes(count):
    return [types.SimpleNamespace(thread=None, name=f"tape{i}") for i in range(count)]


@pytest.mark.parametrize("seed", range(4))
def test_an_op_of_another_thread_is_recorded_by_none_of_the_tapes_open_here(seed):
    graph = Graph()
    tapes = _tapes(int(np.random.default_rng(seed).integers(1, 4)))
    for tape in tapes:
        graph.began(tape)
    assert graph.tapes_here() == tuple(tapes)
    assert _in_thread(graph.tapes_here) == ()
    for tape in tapes:
        graph.ended(tape)
    assert graph.tapes_here() == () and graph.tapes_thread is None


def test_a_tape_opened_in_another_thread_records_there_only():
    graph = Graph()
    here, there = _tapes(2)
    graph.began(here)
    opened = threading.Event()
    release = threading.Event()
    seen = {}

    def worker():
        graph.began(there)
        opened.set()
        seen["there"] = graph.tapes_here()
        release.wait(5)
        graph.ended(there)

    thread = threading.Thread(target=worker)
    thread.start()
    opened.wait(5)
    assert graph.tapes_thread is None  # two threads record: every op's tapes are filtered by its thread
    assert graph.tapes_here() == (here,)
    release.set()
    thread.join()
    assert seen["there"] == (there,)
    assert graph.tapes_here() == (here,) and graph.tapes_thread == threading.get_ident()
