"""launch(): the account the launcher runs as (Popen's user/group/extra_groups)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from esbench.provision import launcher
from esbench.provision.installation import NodeState
from esbench.provision.users import RunAs


def _es_home(tmp_path: Path) -> Path:
    # A launcher that writes the uid and gid it runs as, then exits 0 like a started node.
    home = tmp_path / "es"
    (home / "bin").mkdir(parents=True)
    script = home / "bin" / "elasticsearch"
    script.write_text('#!/bin/sh\necho "$(id -u):$(id -g) $*"\n')
    script.chmod(0o755)
    return home


def _node(tmp_path: Path) -> NodeState:
    node = NodeState(name="node-0", dir=str(tmp_path / "node-0"))
    node.path.mkdir()
    return node


def test_a_node_as_the_current_user_keeps_popens_defaults(tmp_path: Path) -> None:
    node = _node(tmp_path)
    me = RunAs(name="me", uid=os.getuid(), gid=os.getgid(), home="/", switch=False)
    proc = launcher.launch(node, es_home=_es_home(tmp_path), java_home=Path("/jdk"), user=me)
    assert proc.wait(timeout=30) == 0
    assert node.console_log.read_text() == f"{os.getuid()}:{os.getgid()} -d -p {node.pid_file}\n"


def test_a_switched_user_is_passed_with_no_extra_groups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, object] = {}

    class FakePopen:
        def __init__(self, cmd: list[str], **kwargs: object) -> None:
            seen.update(kwargs)

    monkeypatch.setattr(subprocess, "Popen", FakePopen)
    other = RunAs(name="esbench", uid=4242, gid=4343, home="/", switch=True)
    launcher.launch(_node(tmp_path), es_home=_es_home(tmp_path), java_home=Path("/jdk"), user=other)
    assert (seen["user"], seen["group"], seen["extra_groups"]) == (4242, 4343, [])
    assert seen["start_new_session"] is True


def test_the_current_user_passes_none_for_each(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}

    class FakePopen:
        def __init__(self, cmd: list[str], **kwargs: object) -> None:
            seen.update(kwargs)

    monkeypatch.setattr(subprocess, "Popen", FakePopen)
    me = RunAs(name="me", uid=os.getuid(), gid=os.getgid(), home="/", switch=False)
    launcher.launch(_node(tmp_path), es_home=_es_home(tmp_path), java_home=Path("/jdk"), user=me)
    assert (seen["user"], seen["group"], seen["extra_groups"]) == (None, None, None)
