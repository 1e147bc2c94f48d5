"""The hub test's own helpers that touch the machine: are folders given back as they were?"""
from __future__ import annotations

import stat

import pytest

from tests.support.hub import passable_to_everyone, readable_by_everyone

pytestmark = pytest.mark.unit


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_does_a_checkout_below_a_private_folder_become_passable_and_then_private_again(tmp_path):
    private = tmp_path / "home"
    checkout = private / "clone" / "repo"
    checkout.mkdir(parents=True)
    private.chmod(0o700)
    (private / "clone").chmod(0o750)
    before = {folder: _mode(folder) for folder in checkout.parents}
    assert not readable_by_everyone(checkout)
    with passable_to_everyone(checkout):
        assert readable_by_everyone(checkout)
        assert _mode(private) == 0o701 and _mode(private / "clone") == 0o751  # pass through, never list
    assert {folder: _mode(folder) for folder in checkout.parents} == before


def test_are_modes_put_back_when_the_test_inside_fails(tmp_path):
    private = tmp_path / "home"
    checkout = private / "repo"
    checkout.mkdir(parents=True)
    private.chmod(0o700)
    with pytest.raises(RuntimeError), passable_to_everyone(checkout):
        raise RuntimeError("the hub did not come up")
    assert _mode(private) == 0o700
