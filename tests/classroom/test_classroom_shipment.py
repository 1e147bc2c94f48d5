"""Do the bytes a Dask task carries come out as they went in, and can a packed path not escape its folder?"""
from __future__ import annotations

import pytest

from gradtutor.classroom.cluster.distributed import check_address
from gradtutor.classroom.cluster.shipment import pack, unpack
from gradtutor.errors import ClassroomError

pytestmark = pytest.mark.unit


def test_a_folder_survives_pack_and_unpack(tmp_path):
    source = tmp_path / "a"
    (source / "data").mkdir(parents=True)
    (source / "lesson1.ipynb").write_bytes(b'{"cells": []}')
    (source / "data" / "weights.bin").write_bytes(bytes(range(256)))
    (source / "timestamp.txt").write_text("2026-12-01 05:00:00 UTC")
    unpack(pack(source), tmp_path / "b")
    assert {p.relative_to(tmp_path / "b"): p.read_bytes() for p in (tmp_path / "b").rglob("*") if p.is_file()} == \
        {p.relative_to(source): p.read_bytes() for p in source.rglob("*") if p.is_file()}
    assert pack(tmp_path / "missing") == {}


def test_a_packed_path_cannot_leave_its_folder(tmp_path):
    with pytest.raises(ValueError):
        unpack({"../outside.txt": "eA=="}, tmp_path / "inside")
    assert not (tmp_path / "outside.txt").exists()


@pytest.mark.parametrize("address, expected", [("tcp://10.0.0.5:8786", "tcp://10.0.0.5:8786"),
                                               ("grader-1:8786", "tcp://grader-1:8786"),
                                               ("tls://[::1]:8786", "tls://[::1]:8786")])
def test_scheduler_addresses(address, expected):
    assert check_address(address) == expected


@pytest.mark.parametrize("address", ["my laptop", "tcp://host", "http://host:8786", "host:99999", ""])
def test_bad_scheduler_addresses_are_refused(address):
    with pytest.raises(ClassroomError, match="tcp://HOST:PORT"):
        check_address(address)
