"""The provisioning commands through click (fake distribution; real processes)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from esbench.cli import main
from esbench.provision import installation

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_list_cars() -> None:
    code, out, _ = _run("list", "cars")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["Name", "Type", "Description"]
    assert any(ln.split()[:2] == ["4gheap", "car"] for ln in lines)
    assert any(ln.split()[:2] == ["ea", "mixin"] and "assertions" in ln for ln in lines)


def test_unknown_car_is_one_paragraph_and_exit_64(fake_dist: Callable[..., Path]) -> None:
    code, out, err = _run("install", f"--distribution-path={fake_dist()}", "--car=defualts")
    assert code == 64 and out == ""
    assert "[ERROR] Unknown car 'defualts'" in err and "'defaults'" in err
    assert "Traceback" not in err


def test_bad_car_params_and_bad_nodes() -> None:
    code, _, err = _run("start", "--car-params=heap_size")
    assert code == 64 and "--car-params entry 'heap_size' has no ':'" in err
    code, _, err = _run("start", "--nodes=0")
    assert code == 64 and "--nodes" in err


def test_stop_without_running_installation() -> None:
    code, _, err = _run("stop")
    assert code == 64 and "No running installation to stop" in err


def test_unknown_installation_id() -> None:
    code, _, err = _run("start", "--installation-id=feedbeef")
    assert code == 64 and "Installation id 'feedbeef' is unknown" in err


def test_download_prints_the_archive_path(fake_dist: Callable[..., Path]) -> None:
    archive = fake_dist()
    code, out, _ = _run("download", f"--distribution-path={archive}")
    # Rally's shape (esrally/mechanic/mechanic.py download): the binaries as indented JSON.
    assert code == 0 and out == json.dumps({"elasticsearch": str(archive)}, indent=2) + "\n"


def test_install_start_stop_round_trip(fake_dist: Callable[..., Path]) -> None:
    code, out, _ = _run("install", f"--distribution-path={fake_dist()}", "--nodes=2", "--car=2gheap")
    assert code == 0
    inst_id = json.loads(out)["installation-id"]
    assert installation.load(inst_id).car["jvm_options"][:2] == ["-Xms2g", "-Xmx2g"]
    code, out, err = _run("start", f"--installation-id={inst_id}")
    assert code == 0, err
    fields = dict(line.split(": ", 1) for line in out.strip().splitlines())
    assert fields["installation-id"] == inst_id
    hosts = fields["hosts"].split(",")
    assert len(hosts) == 2
    with _OPENER.open(f"http://{hosts[1]}/_cluster/health", timeout=5) as resp:
        assert json.loads(resp.read())["number_of_nodes"] == 2
    code, out, _ = _run("list", "installations")
    assert inst_id in out and "started" in out
    code, out, err = _run("stop")
    assert code == 0 and out.strip() == inst_id and "installation deleted" in err
    assert installation.list_installations() == []


def _started(*args: str) -> str:
    code, out, err = _run("start", *args)
    assert code == 0, err
    return dict(line.split(": ", 1) for line in out.strip().splitlines())["installation-id"]


def test_start_race_id_files_the_node_logs_under_that_race(fake_dist: Callable[..., Path]) -> None:
    # Rally's install/start --race-id=R, race --race-id=R, stop: stop files the nodes' system metrics
    # under R (esrally/mechanic/mechanic.py start/stop); esbench files the nodes' logs in R's directory.
    from esbench.home import esbench_home

    archive = fake_dist()
    inst_id = _started(f"--distribution-path={archive}", "--test-run-id=r-1")  # OSB's spelling
    assert installation.load(inst_id).extra["race_id"] == "r-1"
    race_dir = esbench_home() / "races" / "r-1"
    race_dir.mkdir(parents=True)  # what 'esbench race --race-id=r-1' against those hosts leaves
    code, out, err = _run("stop")
    assert code == 0 and out.strip() == inst_id, err
    assert (race_dir / "logs" / "node-0" / "console.log").is_file()
    assert f"Filed the nodes' logs under race r-1: {race_dir / 'logs'}/<node>" in err
    # No race of that id stored by the time of stop: nothing is filed, and the line says how to race it.
    inst_id = _started(f"--distribution-path={archive}", "--race-id=r-2")
    code, out, err = _run("stop")
    assert code == 0 and out.strip() == inst_id
    assert "No race 'r-2' is stored" in err and "--pipeline=benchmark-only --target-hosts=127.0.0.1:" in err
    assert not (esbench_home() / "races" / "r-2").exists()
    # Rally's --skip-telemetry: nothing filed under the race.
    inst_id = _started(f"--distribution-path={archive}", "-tid", "r-1")
    code, _, err = _run("stop", "--skip-telemetry")
    assert code == 0 and "Filed" not in err and "No race" not in err
    # A bad id is refused before anything starts.
    code, _, err = _run("start", f"--distribution-path={archive}", "--race-id=a/b")
    assert code == 64 and "--race-id" in err and installation.list_installations() == []


def test_a_start_without_race_id_forgets_the_one_before_it(fake_dist: Callable[..., Path]) -> None:
    # stop --preserve-install keeps the installation; its next start without --race-id files nothing
    # under the earlier race (Rally's start requires the id each time and its stop deletes the node file).
    from esbench.home import esbench_home

    inst_id = _started(f"--distribution-path={fake_dist()}", "--race-id=r-old")
    (esbench_home() / "races" / "r-old").mkdir(parents=True)
    code, _, err = _run("stop", "--preserve-install")
    assert code == 0, err
    assert _started(f"--installation-id={inst_id}") == inst_id
    assert "race_id" not in installation.load(inst_id).extra
    code, _, err = _run("stop")
    assert code == 0 and "Filed" not in err, err
