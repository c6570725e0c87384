"""Team cars, mixins and plugins in the rally-teams layout (esbench.provision.teams, .plugins,
.teamrepos, .teamconfig), over the sample team in tests/resources/teams/sample and teams built here.

Rally 2.13 itself checks the rendering of the same team in tests/integration/test_teams_rally_oracle.py
(where Rally is installed); these tests pin the rules one by one.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml
from peer_pythons import peer_python_or_skip

from esbench.cli.options.coverage import RALLY
from esbench.exceptions import ConfigError, DataError, NotFound, SupplyError, UserError
from esbench.provision.installation import NodeState
from esbench.provision.nodeconfig import write_node_config
from esbench.provision.plugins import (
    PluginDescriptor,
    install_plugin,
    list_plugins,
    load_plugin,
    parse_plugin_specs,
    plugin_url,
)
from esbench.provision.settings import ProvisionSettings
from esbench.provision.teamconfig import plugin_descriptors, plugin_record, team_record, uses_team
from esbench.provision.teamrepos import repository_url, team_checkout
from esbench.provision.teams import (
    NodePlacement,
    check_hooks,
    list_team_cars,
    load_team_car,
    provisioner_variables,
    render_templates,
)

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "teams" / "sample"


def test_cars_are_listed_by_type_then_name() -> None:
    cars = list_team_cars(SAMPLE)
    assert [(c.type, c.name) for c in cars] == sorted((c.type, c.name) for c in cars)
    assert {c.name for c in cars} == {"small", "medium", "asserts", "lowdisk", "parallel", "hooked"}
    assert next(c for c in cars if c.name == "asserts").description == "Java assertions on"


def test_variables_base_defaults_then_cars_in_order_then_car_params() -> None:
    car = load_team_car(SAMPLE, ["small", "lowdisk"], {"low_mark": "600mb"})
    # core/config.ini gives collector and license; small overrides nothing of them
    assert car.variables["collector"] == "g1" and car.variables["license"] == "trial"
    assert car.variables["heap_size"] == "512m"
    # ${flood_mark} is interpolated by the ini reader, as in Rally; --car-params win over the files
    assert car.variables["high_mark"] == "200mb"
    assert car.variables["low_mark"] == "600mb"
    later = load_team_car(SAMPLE, ["small", "medium"])
    assert later.variables["heap_size"] == "768m" and later.variables["license"] == "basic"


def test_config_bases_are_collected_in_order_each_once() -> None:
    car = load_team_car(SAMPLE, ["small", "lowdisk", "asserts"])
    cars = SAMPLE / "cars" / "v1"
    assert car.config_paths == (cars / "core/templates", cars / "disk/templates", cars / "asserts/templates")
    assert car.name == "small+lowdisk+asserts"


def test_unknown_car_names_close_matches_and_the_list() -> None:
    with pytest.raises(NotFound) as e:
        load_team_car(SAMPLE, ["smal"])
    assert "'small'" in str(e.value) and "medium" in str(e.value)


def test_a_mixin_alone_lacks_runtime_jdk_as_in_rally() -> None:
    with pytest.raises(ConfigError) as e:
        load_team_car(SAMPLE, ["asserts"])
    assert "runtime.jdk" in str(e.value) and "--car=defaults,asserts" in str(e.value)


def test_not_a_team_directory(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as e:
        load_team_car(tmp_path, ["small"])
    assert "cars/v1" in str(e.value)


def test_unknown_hook_is_refused_known_ones_only_when_they_would_act(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as e:
        check_hooks(load_team_car(SAMPLE, ["small", "hooked"]))
    assert "bootstrap hook" in str(e.value) and "hooked/config.py" in str(e.value)
    base = tmp_path / "cars" / "v1" / "x_pack" / "base"
    car = load_team_car(SAMPLE, ["small"])
    check_hooks(car, [base])  # x_pack/base acts only for x-pack-security
    secured = load_team_car(SAMPLE, ["small"])
    with pytest.raises(ConfigError, match="certificates"):
        check_hooks(
            type(secured)(names=("defaults", "x-pack-security"), config_paths=(), variables={}), [base]
        )


def _place(root: Path, **over: object) -> NodePlacement:
    values: dict[str, object] = {
        "cluster_name": "c1",
        "node_name": "n1",
        "node_root": root,
        "data_path": root / "data",
        "log_path": root / "logs",
        "heap_dump_path": root / "heapdump",
        "node_ip": "127.0.0.1",
        "http_port": 9201,
        "transport_port": 9301,
        "seed_hosts": ["127.0.0.1:9301", "127.0.0.1:9302"],
        "node_names": ["n1", "n2"],
    }
    values.update(over)
    return NodePlacement(**values)  # type: ignore[arg-type]


def test_provisioner_variables_override_the_cars_and_add_cluster_settings(tmp_path: Path) -> None:
    variables = provisioner_variables(
        {"node_name": "from-car", "heap_size": "1g"},
        _place(tmp_path),
        plugin_variables={"heap_size": "2g"},
        mandatory_plugins=["analysis-icu"],
    )
    assert variables["node_name"] == "n1"  # the node's own values win over the car's
    assert variables["heap_size"] == "2g"  # plugin variables come last, as in Rally
    assert variables["all_node_ips"] == '["127.0.0.1:9301","127.0.0.1:9302"]'
    assert variables["minimum_master_nodes"] == 2
    assert variables["cluster_settings"] == {"plugin.mandatory": ["analysis-icu"]}
    assert variables["data_paths"] == [str(tmp_path / "data")]
    assert provisioner_variables({"data_paths": "/d"}, _place(tmp_path))["data_paths"] == ["/d"]


def test_templates_render_append_and_copy_binaries(tmp_path: Path) -> None:
    car = load_team_car(SAMPLE, ["medium", "lowdisk", "asserts", "parallel"])
    written = render_templates(
        car.config_paths, tmp_path, provisioner_variables(car.variables, _place(tmp_path))
    )
    config = tmp_path / "config"
    assert config / "elasticsearch.yml" in written
    settings = yaml.safe_load((config / "elasticsearch.yml").read_text())
    assert settings["cluster.routing.allocation.disk.watermark.low"] == "400mb"  # appended by 'disk'
    assert settings["xpack.license.self_generated.type"] == "basic"
    assert settings["discovery.seed_hosts"] == ["127.0.0.1:9301", "127.0.0.1:9302"]
    jvm = (config / "jvm.options").read_text().splitlines()
    assert "-Xms768m" in jvm and "-XX:+UseParallelGC" in jvm and "-XX:+UseG1GC" not in jvm
    assert jvm.index("-ea") > jvm.index("-Xmx768m")  # the mixin's template comes after the car's
    notes = (SAMPLE / "cars/v1/core/templates/config/notes.bin").read_bytes()
    assert (config / "notes.bin").read_bytes() == notes  # not a template: copied as is


def test_template_errors_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "t"
    (bad / "config").mkdir(parents=True)
    (bad / "config" / "elasticsearch.yml").write_text("a: {{ broken\n")
    with pytest.raises(ConfigError) as e:
        render_templates([bad], tmp_path / "out", {})
    assert "elasticsearch.yml line 1" in str(e.value)
    outside = tmp_path / "o"
    (outside / "bin").mkdir(parents=True)
    with pytest.raises(ConfigError, match="outside 'config/'"):
        render_templates([outside], tmp_path / "out", {})


def test_node_config_from_a_team_replaces_the_distributions(tmp_path: Path) -> None:
    record = team_record(ProvisionSettings(team_path=SAMPLE, car="small,asserts"))
    node = NodeState(name="node-0", dir=str(tmp_path / "node-0"), http_port=9205, transport_port=9305)
    node.config_dir.mkdir(parents=True)
    (node.config_dir / "stale.yml").write_text("left: over\n")
    # what `elasticsearch-plugin install` leaves in the installation's config directory
    (tmp_path / "dist" / "esbench-demo").mkdir(parents=True)
    (tmp_path / "dist" / "esbench-demo" / "demo.conf").write_text("from the plugin\n")
    write_node_config(
        node,
        dist_config=tmp_path / "dist",
        install_id="i1",
        cluster_name="c",
        all_nodes=[node],
        car_jvm_options=[],
        car_settings={},
        team=record["team"],  # type: ignore[arg-type]
        plugins=[plugin_record(load_plugin(SAMPLE, "esbench-demo", ["wire"]))],
    )
    assert not (node.config_dir / "stale.yml").exists()
    settings = yaml.safe_load((node.config_dir / "elasticsearch.yml").read_text())
    assert settings["http.port"] == 9205 and settings["transport.port"] == 9305
    assert settings["plugin.mandatory"] == ["esbench-demo"] and settings["http.max_content_length"] == "1mb"
    assert (node.config_dir / "esbench-demo" / "demo.conf").read_text() == "from the plugin\n"
    marker = (node.config_dir / "jvm.options.d" / "esbench.options").read_text()
    assert marker == "-Desbench.node=i1/node-0\n"
    assert (node.path / "heapdump").is_dir()


def test_team_record_is_json_and_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SAMPLE.parent)
    record = team_record(ProvisionSettings(team_path=Path("sample"), car="small"))
    assert record["name"] == "small"
    team = record["team"]
    assert isinstance(team, dict) and Path(team["path"]).is_absolute()
    assert uses_team(ProvisionSettings(team_revision="abc")) and not uses_team(ProvisionSettings())


def test_plugin_specs() -> None:
    assert parse_plugin_specs("a, b:x+y ,") == [("a", ()), ("b", ("x", "y"))]
    with pytest.raises(UserError, match="PLUGIN:CONFIG"):
        parse_plugin_specs("a:b:c")


def test_plugins_core_configured_and_community() -> None:
    assert list_plugins(SAMPLE) == [
        ("analysis-icu", ""),
        ("mapper-size", ""),
        ("esbench-demo", "fast"),
        ("esbench-demo", "wire"),
    ]
    core = load_plugin(SAMPLE, "analysis-icu", [], {"p": "1"})
    assert (
        core.core and core.variables == {} and core.mandatory
    )  # Rally passes no params to a bare core plugin
    community = load_plugin(SAMPLE, "my-own", [], {"p": "1"})
    assert not community.core and community.variables == {"p": "1"}
    wired = load_plugin(SAMPLE, "esbench-demo", ["wire", "fast"], {"extra": "x"})
    assert wired.variables == {"wire_setting": "2mb", "extra": "x"}  # later configurations win, params last
    assert [p.name for p in wired.config_paths] == ["templates"]
    with pytest.raises(NotFound, match="has no configuration 'nope'"):
        load_plugin(SAMPLE, "esbench-demo", ["nope"])
    with pytest.raises(NotFound, match="Unknown plugin 'ghost'"):
        load_plugin(SAMPLE, "ghost", ["cfg"])
    with pytest.raises(ConfigError, match="no config base"):
        load_plugin(SAMPLE, "esbench-demo", ["fast"])
    assert not PluginDescriptor(name="repository-s3").mandatory  # moved to a module


def test_plugins_without_a_team_are_plain_names() -> None:
    settings = ProvisionSettings(elasticsearch_plugins="analysis-icu", plugin_params={"k": "v"})
    (plugin,) = plugin_descriptors(settings, None)
    assert plugin.name == "analysis-icu" and plugin.variables == {"k": "v"}
    with pytest.raises(UserError, match="--team-path"):
        plugin_descriptors(ProvisionSettings(elasticsearch_plugins="x:cfg"), None)


def test_plugin_url_from_esbench_ini(isolated_home: Path) -> None:
    assert plugin_url("analysis-icu", "8.8.2") is None
    (isolated_home / "esbench.ini").write_text(
        "[distributions]\nplugin.analysis-icu.release.url = file:///p/analysis-icu-{{VERSION}}.zip\n"
    )
    assert plugin_url("analysis-icu", "8.8.2") == "file:///p/analysis-icu-8.8.2.zip"


def test_offline_plugin_without_a_url_is_refused(isolated_home: Path, tmp_path: Path) -> None:
    with pytest.raises(SupplyError, match="offline") as e:
        install_plugin(
            PluginDescriptor(name="analysis-icu"), es_home=tmp_path, version="8.8.2", env={}, offline=True
        )
    assert "plugin.analysis-icu.release.url" in str(e.value)
    assert "Elastic's server" in str(e.value)
    # OpenSearch's installer fetches core plugins from OpenSearch's release server, not Elastic's.
    with pytest.raises(SupplyError, match="offline") as e:
        install_plugin(
            PluginDescriptor(name="analysis-icu"),
            es_home=tmp_path,
            version="2.19.1",
            env={},
            offline=True,
            executable="opensearch",
        )
    assert "OpenSearch's release server" in str(e.value) and "Elastic" not in str(e.value)


def test_failed_plugin_install_says_why(isolated_home: Path, tmp_path: Path) -> None:
    installer = tmp_path / "bin" / "elasticsearch-plugin"
    installer.parent.mkdir()
    installer.write_text('#!/bin/sh\necho "cannot reach the server" >&2\nexit 74\n')
    installer.chmod(0o755)
    with pytest.raises(SupplyError) as e:
        install_plugin(
            PluginDescriptor(name="analysis-icu"), es_home=tmp_path, version="8.8.2", env={}, offline=False
        )
    assert "I/O error" in str(e.value) and "cannot reach the server" in str(e.value)


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def team_origin(tmp_path: Path) -> Path:
    """A git repository of the sample team with branches master, 8 and 8.12 (each car file names its
    branch)."""
    origin = tmp_path / "origin"
    origin.mkdir()
    _git("init", "-q", "-b", "master", cwd=origin)
    _git("config", "user.email", "t@example.invalid", cwd=origin)
    _git("config", "user.name", "t", cwd=origin)
    import shutil

    for branch in ("master", "8", "8.12"):
        if branch != "master":
            _git("checkout", "-q", "-b", branch, "master", cwd=origin)
        shutil.copytree(SAMPLE / "cars", origin / "cars", dirs_exist_ok=True)
        (origin / "cars" / "v1" / "small.ini").write_text(
            f"[meta]\ndescription = branch {branch}\n[config]\nbase = core\n[variables]\nheap_size = 512m\n"
        )
        _git("add", "-A", cwd=origin)
        _git("commit", "-q", "-m", branch, cwd=origin)
    _git("checkout", "-q", "master", cwd=origin)
    return origin


def test_team_repository_branch_follows_the_distribution_version(
    isolated_home: Path, team_origin: Path
) -> None:
    (isolated_home / "esbench.ini").write_text(f"[teams]\nlocal.url = {team_origin}\n")
    for version, branch in (("8.13.4", "8.12"), ("8.8.2", "8"), ("9.1.0", "master")):
        directory, revision = team_checkout(
            "local", revision=None, distribution_version=version, offline=False
        )
        assert directory == isolated_home / "benchmarks" / "teams" / "local"
        (car,) = (c for c in list_team_cars(directory) if c.name == "small")
        assert car.description == f"branch {branch}", version
        assert revision == _git("rev-parse", f"refs/heads/{branch}", cwd=team_origin).strip()
    first = _git("rev-list", "--max-parents=0", "HEAD", cwd=team_origin).strip()
    _, revision = team_checkout("local", revision=first, distribution_version="8.8.2", offline=True)
    assert revision == first


def test_team_repository_errors(isolated_home: Path) -> None:
    assert repository_url("default") == "https://github.com/elastic/rally-teams"
    with pytest.raises(NotFound, match=r"\[teams\]"):
        repository_url("elsewhere")
    with pytest.raises(DataError, match="offline"):
        team_checkout(None, revision=None, distribution_version="8.8.2", offline=True)
    (isolated_home / "esbench.ini").write_text(f"[teams]\nbroken.url = {isolated_home / 'missing'}\n")
    with pytest.raises(DataError, match="--team-path"):
        team_checkout("broken", revision=None, distribution_version="8.8.2", offline=False)


def _cli(*args: str) -> tuple[int, str, str]:
    from click.testing import CliRunner

    from esbench.cli import main

    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_cli_lists_a_teams_cars_and_plugins(isolated_home: Path) -> None:
    code, out, _ = _cli("list", "cars", f"--team-path={SAMPLE}")
    assert code == 0
    rows = [line.split()[:2] for line in out.splitlines()[2:]]
    assert ["small", "car"] in rows and ["asserts", "mixin"] in rows and ["4gheap", "car"] not in rows
    code, out, _ = _cli("list", "elasticsearch-plugins", f"--team-path={SAMPLE}")
    assert code == 0 and ["esbench-demo", "wire"] in [line.split() for line in out.splitlines()]
    # Without a team option: the default team repository, as in Rally; offline without a clone, refused.
    code, _, err = _cli("list", "elasticsearch-plugins", "--offline")
    assert code == 64 and "no clone of the team repository 'default'" in err and "Traceback" not in err


def test_cli_install_refuses_before_supplying_anything(isolated_home: Path) -> None:
    code, out, err = _cli("install", f"--team-path={SAMPLE}", "--car=small,hooked")
    assert code == 64 and out == "" and "bootstrap hook" in err and "Traceback" not in err
    code, _, err = _cli("install", f"--team-path={SAMPLE}", "--car=asserts")
    assert code == 64 and "runtime.jdk" in err
    code, _, err = _cli("install", "--elasticsearch-plugins=a:b:c")
    assert code == 64 and "PLUGIN:CONFIG" in err
    code, _, err = _cli("install", f"--team-path={SAMPLE}", "--team-revision=8")
    assert code == 64 and "Give one of the two" in err
    code, _, err = _cli("download", f"--team-path={SAMPLE}")
    assert code == 64 and "shape an installation" in err
    code, _, err = _cli("install", f"--team-path={SAMPLE}", "--distribution-flavor=opensearch")
    assert code == 64 and "Elasticsearch only" in err


def test_cli_team_options_with_target_hosts_are_refused(isolated_home: Path) -> None:
    track = SAMPLE.parents[1] / "tracks"
    code, _, err = _cli(
        "race", f"--track-path={next(track.iterdir())}", "--target-hosts=127.0.0.1:1", f"--team-path={SAMPLE}"
    )
    assert code == 64 and "--target-hosts races an existing one" in err


def test_list_elasticsearch_plugins_prints_rallys_heading_and_table(
    isolated_home: Path, tmp_path: Path
) -> None:
    # Rally 2.13 itself lists the same team (esrally/mechanic/team.py list_plugins).
    esrally = peer_python_or_skip(RALLY).parent / "esrally"
    rally = subprocess.run(
        [str(esrally), "list", "elasticsearch-plugins", f"--team-path={SAMPLE}", "--offline"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(tmp_path)},
        check=False,
    )
    assert rally.returncode == 0, rally.stdout[-2000:] + rally.stderr[-2000:]
    lines = rally.stdout.splitlines()
    start = lines.index("Available Elasticsearch plugins:")
    end = next(i for i in range(start + 3, len(lines)) if not lines[i].strip())
    code, out, _ = _cli("list", "elasticsearch-plugins", f"--team-path={SAMPLE}")
    assert code == 0 and out.splitlines() == lines[start:end]
