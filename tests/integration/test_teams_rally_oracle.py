"""Rally 2.13 as the oracle of team cars: for one car, ``esrally install --team-path`` and esbench write
the same node configuration.

For each car, Rally installs the Maven integ-test build of 8.8.2 (``[distributions] release.url`` in a
private ``rally.ini``, the zip put into Rally's download cache, ``--offline``, ``HOME`` under
``tmp_path``) with the node name, cluster name and ports esbench is given too; esbench renders the same
car through the code ``esbench start`` runs (``teamconfig.team_record`` then ``write_node_config``).
Compared:

* ``elasticsearch.yml``: parsed YAML, equal;
* ``jvm.options`` and ``log4j2.properties``: their lines without blank and ``#`` comment lines, in order;
* the set of files in the configuration directory (esbench adds ``jvm.options.d/esbench.options``,
  its process marker);
* the environment of the node process (Rally's ``ProcessLauncher._prepare_env``, run in Rally's
  interpreter, against esbench's ``launcher.node_env``): ``ES_JAVA_HOME``, ``JAVA_HOME``,
  ``ES_JAVA_OPTS`` equal and the JDK's ``bin`` first on ``PATH``.

Normalised before comparing, because the two lay out a node differently: each tool's data directory,
log directory, heap-dump directory and ``install_root_path`` are replaced by ``<DATA>``, ``<LOGS>``,
``<HEAPDUMP>`` and ``<ROOT>`` (Rally: ``<node>/install/elasticsearch-8.8.2/data``, ``<node>/logs/server``,
``<node>/heapdump``, the Elasticsearch home; esbench: ``<node>/data``, ``<node>/logs``,
``<node>/heapdump``, the node directory, whose ``config/`` is ``ES_PATH_CONF``).

The teams: the sample team esbench ships for its tests (tests/resources/teams/sample), and, where the
rally-teams mirror exists on this machine (``ESBENCH_TEST_RALLY_TEAMS``, default
/work/.mirror/elastic+rally-teams/repo), every car of its ``8`` branch (the one Rally picks for 8.8.2)
and of ``master``. Needs Rally (``ESBENCH_TEST_RALLY``, default /work/venvs/rally/bin/esrally) and is
skipped without it: CI has neither Rally nor GitHub.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from harness import RESOURCES

from esbench.exceptions import ConfigError
from esbench.provision.installation import NodeState
from esbench.provision.launcher import node_env
from esbench.provision.nodeconfig import write_node_config
from esbench.provision.settings import ProvisionSettings
from esbench.provision.teamconfig import team_record
from esbench.provision.teams import list_team_cars
from esbench.provision.users import RunAs
from esbench.track.params import parse_params

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("rally-teams-oracle")]

RALLY = Path(os.environ.get("ESBENCH_TEST_RALLY", "/work/venvs/rally/bin/esrally"))
RALLY_TEAMS = Path(os.environ.get("ESBENCH_TEST_RALLY_TEAMS", "/work/.mirror/elastic+rally-teams/repo"))
VERSION = "8.8.2"
JAVA_HOME = Path(os.environ.get("ESBENCH_TEST_JAVA17", "/usr/lib/jvm/java-17-openjdk-amd64"))
NODE, CLUSTER, HTTP_PORT = "rally-node-0", "rally-benchmark", 39200
TRANSPORT_PORT = HTTP_PORT + 100  # Rally's rule (provisioner.py: transport_port = http_port + 100)
SAMPLE = RESOURCES / "teams" / "sample"

needs_rally = pytest.mark.skipif(not RALLY.is_file(), reason=f"Rally 2.13 is not installed at {RALLY}")


def _distribution() -> Path:
    zip_path = (
        Path.home()
        / f".m2/repository/org/elasticsearch/distribution/integ-test-zip/elasticsearch/{VERSION}"
        / f"elasticsearch-{VERSION}.zip"
    )
    if not zip_path.is_file():
        subprocess.run(
            [
                "mvn",
                "-q",
                "dependency:get",
                f"-Dartifact=org.elasticsearch.distribution.integ-test-zip:elasticsearch:{VERSION}:zip",
                "-Dtransitive=false",
            ],
            check=True,
            timeout=600,
        )
    return zip_path


@pytest.fixture(scope="module")
def rally_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private HOME for Rally: rally.ini with the distribution URL, the zip already in its cache."""
    home = tmp_path_factory.mktemp("rally-home")
    rally_dir = home / ".rally"
    (rally_dir / "benchmarks" / "distributions").mkdir(parents=True)
    shutil.copy(_distribution(), rally_dir / "benchmarks" / "distributions" / f"elasticsearch-{VERSION}.zip")
    (rally_dir / "rally.ini").write_text(
        "[meta]\nconfig.version = 17\n\n[system]\nenv.name = local\n\n[node]\n"
        "root.dir = ${CONFIG_DIR}/benchmarks\nsrc.root.dir = ${CONFIG_DIR}/benchmarks/src\n\n"
        "[source]\nremote.repo.url = https://github.com/elastic/elasticsearch.git\n"
        "elasticsearch.src.subdir = elasticsearch\n\n[benchmarks]\n"
        "local.dataset.cache = ${CONFIG_DIR}/benchmarks/data\n\n[reporting]\ndatastore.type = in-memory\n\n"
        "[teams]\ndefault.url = https://github.com/elastic/rally-teams\n\n[defaults]\n"
        "preserve_benchmark_candidate = false\n\n[distributions]\nrelease.cache = true\n"
        # Never fetched: the zip is in the cache under this URL's file name.
        "release.url = https://artifacts.invalid/elasticsearch-{{VERSION}}.zip\n",
        encoding="utf-8",
    )
    return home


@pytest.fixture(scope="module")
def rally_teams(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Checkouts of the rally-teams mirror's ``8`` and ``master`` branches ({} without a mirror)."""
    if not RALLY_TEAMS.exists():
        return {}
    out = {}
    for branch in ("8", "master"):
        target = tmp_path_factory.mktemp(f"rally-teams-{branch}")
        subprocess.run(
            ["git", "clone", "-q", "-b", branch, str(RALLY_TEAMS), str(target)], check=True, timeout=300
        )
        out[branch] = target
    return out


def _rally_config(home: Path, team: Path, car: str, car_params: str = "") -> tuple[Path, Path]:
    """Run ``esrally install``; returns (the node directory, the Elasticsearch home)."""
    env = {
        "HOME": str(home),
        "PATH": os.environ["PATH"],
        "JAVA17_HOME": str(JAVA_HOME),
        "LANG": "C.UTF-8",
    }
    done = subprocess.run(
        [
            str(RALLY),
            "install",
            "--offline",
            f"--team-path={team}",
            f"--car={car}",
            *([f"--car-params={car_params}"] if car_params else []),
            f"--distribution-version={VERSION}",
            f"--node-name={NODE}",
            f"--cluster-name={CLUSTER}",
            "--network-host=127.0.0.1",
            f"--http-port={HTTP_PORT}",
            f"--master-nodes={NODE}",
            f"--seed-hosts=127.0.0.1:{TRANSPORT_PORT}",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"esrally install --car={car} failed:\n{done.stdout}\n{done.stderr}"
    start = done.stdout.index("{")
    installation_id = json.loads(done.stdout[start : done.stdout.index("}", start) + 1])["installation-id"]
    node_dir = home / ".rally" / "benchmarks" / "races" / installation_id / NODE
    es_home = next((node_dir / "install").glob("elasticsearch*"))
    return node_dir, es_home


def _esbench_config(tmp: Path, team: Path, car: str, car_params: str = "") -> NodeState:
    params = parse_params(car_params, option="--car-params") if car_params else {}
    record = team_record(
        ProvisionSettings(team_path=team, car=car, car_params=params, distribution_version=VERSION)
    )
    node = NodeState(
        name=NODE, dir=str(tmp / "nodes" / NODE), http_port=HTTP_PORT, transport_port=TRANSPORT_PORT
    )
    for d in (node.data_dir, node.logs_dir, node.tmp_dir):
        d.mkdir(parents=True)
    write_node_config(
        node,
        dist_config=tmp / "unused-distribution-config",
        install_id="oracle",
        cluster_name=CLUSTER,
        all_nodes=[node],
        car_jvm_options=[],
        car_settings={},
        team=record["team"],  # type: ignore[arg-type]
        plugins=[],
    )
    return node


def _normalise(text: str, paths: dict[str, Path]) -> str:
    # Longest first: Rally's data directory lies inside its install root.
    for placeholder, path in sorted(paths.items(), key=lambda kv: -len(str(kv[1]))):
        text = text.replace(str(path), placeholder)
    return text


def _lines(path: Path, paths: dict[str, Path]) -> list[str]:
    return [
        line.strip()
        for line in _normalise(path.read_text(encoding="utf-8"), paths).splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]


def _rally_env() -> dict[str, str]:
    code = (
        "import json, logging\n"
        "from esrally.mechanic import launcher\n"
        "from esrally import telemetry\n"
        "pl = object.__new__(launcher.ProcessLauncher)\n"
        "pl.pass_env_vars = ['PATH']\n"
        "pl.logger = logging.getLogger('oracle')\n"
        f"env = pl._prepare_env('{NODE}', {str(JAVA_HOME)!r}, telemetry.Telemetry([], devices=[]))\n"
        "print(json.dumps(env))\n"
    )
    done = subprocess.run(
        [str(RALLY.parent / "python"), "-c", code],
        env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


def _compare(tmp_path: Path, rally_home: Path, team: Path, car: str, car_params: str = "") -> None:
    ours = _esbench_config(tmp_path, team, car, car_params)
    rally_node, rally_es = _rally_config(rally_home, team, car, car_params)
    rally_paths = {
        "<DATA>": rally_es / "data",
        "<LOGS>": rally_node / "logs" / "server",
        "<HEAPDUMP>": rally_node / "heapdump",
        "<ROOT>": rally_es,
    }
    our_paths = {
        "<DATA>": ours.data_dir,
        "<LOGS>": ours.logs_dir,
        "<HEAPDUMP>": ours.path / "heapdump",
        "<ROOT>": ours.path,
    }
    rally_conf, our_conf = rally_es / "config", ours.config_dir

    rally_files = {p.relative_to(rally_conf).as_posix() for p in rally_conf.rglob("*") if p.is_file()}
    our_files = {p.relative_to(our_conf).as_posix() for p in our_conf.rglob("*") if p.is_file()}
    assert our_files - {"jvm.options.d/esbench.options"} == rally_files

    rally_yml = yaml.safe_load(_normalise((rally_conf / "elasticsearch.yml").read_text(), rally_paths))
    our_yml = yaml.safe_load(_normalise((our_conf / "elasticsearch.yml").read_text(), our_paths))
    assert our_yml == rally_yml
    for name in sorted(rally_files - {"elasticsearch.yml"}):
        if name.endswith((".options", ".properties", ".yml", ".txt")):
            assert _lines(our_conf / name, our_paths) == _lines(rally_conf / name, rally_paths), name
        else:
            assert (our_conf / name).read_bytes() == (rally_conf / name).read_bytes(), name
    shutil.rmtree(rally_node.parent)


@needs_rally
@pytest.mark.parametrize(
    ("car", "car_params"),
    [
        ("small", ""),
        ("medium", ""),
        ("small,asserts", ""),
        ("medium,lowdisk,parallel", ""),
        # --car-params are typed alike (Rally's kv_to_map): 3 is a number, 'x' a string, true a bool
        ("small,lowdisk", "heap_size:600m,low_mark:'450mb',refresh_pool:3,collector:parallel"),
    ],
)
def test_sample_team_cars_render_as_rally_renders_them(
    tmp_path: Path, rally_home: Path, car: str, car_params: str
) -> None:
    _compare(tmp_path, rally_home, SAMPLE, car, car_params)


@needs_rally
@pytest.mark.parametrize("branch", ["8", "master"])
def test_every_rally_teams_car_renders_as_rally_renders_it(
    tmp_path: Path, rally_home: Path, rally_teams: dict[str, Path], branch: str
) -> None:
    """Every car of the branch; a mixin with ``defaults`` (alone it lacks runtime.jdk, in Rally too)."""
    if branch not in rally_teams:
        pytest.skip(f"no rally-teams mirror at {RALLY_TEAMS}")
    team = rally_teams[branch]
    compared, refused = [], []
    for info in list_team_cars(team):
        car = info.name if info.type == "car" else f"defaults,{info.name}"
        try:
            _compare(tmp_path / info.name, rally_home, team, car)
        except ConfigError as e:
            # esbench refuses a car whose bootstrap hook would run (Rally runs its Python).
            assert "bootstrap hook" in str(e), e
            refused.append(info.name)
        else:
            compared.append(info.name)
    assert refused == ["x-pack-security"]
    assert len(compared) + len(refused) == len(list_team_cars(team))
    print(f"rally-teams {branch}: {len(compared)} cars equal to Rally's: {', '.join(compared)}")


@needs_rally
def test_node_environment_is_rallys(tmp_path: Path) -> None:
    """The variables both set for a node: Rally's ES_JAVA_OPTS default, its JDK variables and PATH head."""
    rally = _rally_env()
    node = NodeState(name=NODE, dir=str(tmp_path / NODE))
    user = RunAs(name="esbench", uid=1000, gid=1000, home="/", switch=False)
    ours = node_env(java_home=JAVA_HOME, node=node, user=user, base={"PATH": "/usr/bin:/bin"})
    for key in ("ES_JAVA_HOME", "JAVA_HOME", "ES_JAVA_OPTS"):
        assert ours[key] == rally[key], key
    assert ours["PATH"].split(os.pathsep)[0] == rally["PATH"].split(os.pathsep)[0] == str(JAVA_HOME / "bin")
    # What esbench sets beyond Rally: its node directory layout and the run-as account.
    assert set(ours) - set(rally) == {"ES_PATH_CONF", "ES_TMPDIR", "HOME", "USER", "LOGNAME"}
