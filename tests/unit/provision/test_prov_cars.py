from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
from peer_pythons import peer_python_or_skip

from esbench.cli.options.coverage import RALLY
from esbench.exceptions import ConfigError, NotFound, UserError
from esbench.provision import cluster
from esbench.provision.cars import list_cars, resolve_car
from esbench.provision.settings import ProvisionSettings


def test_builtin_cars_are_listed_with_type_and_description() -> None:
    cars = {c.name: c for c in list_cars()}
    required = {"defaults", "1gheap", "2gheap", "4gheap", "8gheap", "g1gc", "parallelgc", "ea", "unpooled"}
    assert required <= set(cars)
    assert cars["defaults"].type == "car" and cars["ea"].type == "mixin"
    assert all(c.description for c in cars.values())


def test_defaults_sets_a_one_gib_heap() -> None:
    car = resolve_car("defaults")
    assert car.heap_size == "1g"
    assert car.jvm_options == ("-Xms1g", "-Xmx1g")


def test_mixins_combine_in_order_and_base_is_applied_once() -> None:
    car = resolve_car("defaults,4gheap,ea,unpooled")
    assert car.name == "defaults+4gheap+ea+unpooled"
    assert car.names == ("vanilla", "defaults", "4gheap", "ea", "unpooled")
    assert car.jvm_options == ("-Xms4g", "-Xmx4g", "-ea", "-Dio.netty.allocator.type=unpooled")


def test_a_mixin_alone_gets_the_defaults_car() -> None:
    assert resolve_car("parallelgc").jvm_options == ("-Xms1g", "-Xmx1g", "-XX:+UseParallelGC")


def test_car_params_override_variables() -> None:
    car = resolve_car("2gheap", {"heap_size": "512m"})
    assert car.jvm_options[:2] == ("-Xms512m", "-Xmx512m")


def test_unknown_car_lists_close_matches() -> None:
    with pytest.raises(NotFound, match=r"Unknown car '4gheep'.*Did you mean '4gheap'"):
        resolve_car("defaults,4gheep")


def test_user_cars_with_settings_and_undefined_variables(isolated_home: Path) -> None:
    cars = isolated_home / "cars"
    cars.mkdir()
    (cars / "fast.yml").write_text(
        "description: Bigger buffers\ntype: mixin\nvariables: {buf: 20%}\n"
        "settings:\n  indices:\n    memory:\n      index_buffer_size: '{{buf}}'\n"
        "  thread_pool.write.queue_size: 2000\n"
    )
    car = resolve_car("fast", {"buf": "30%"})
    # A mixin alone gets defaults (whose vanilla base adds its own settings) before it.
    assert car.names == ("vanilla", "defaults", "fast")
    assert {
        "indices.memory.index_buffer_size": "30%",
        "thread_pool.write.queue_size": 2000,
    }.items() <= car.settings.items()
    (cars / "broken.yml").write_text("type: mixin\njvm_options: ['-Dx={{nope}}']\n")
    with pytest.raises(ConfigError, match=r"broken.*'nope' is undefined.*--car-params"):
        resolve_car("broken")
    (cars / "bad.yml").write_text("type: mixin\njvm_options: [\n")
    with pytest.raises(ConfigError, match=r"bad.yml line \d+ is not valid YAML"):
        resolve_car("bad")
    (cars / "cyc.yml").write_text("type: car\nbase: cyc\n")
    with pytest.raises(ConfigError, match="cyclic"):
        resolve_car("cyc")


_RALLY_DATA_PATHS = """
import json, sys
from esrally.mechanic.provisioner import ElasticsearchInstaller

class Car:
    variables = json.loads(sys.argv[1])

installer = ElasticsearchInstaller.__new__(ElasticsearchInstaller)
installer.car = Car()
installer.es_home_path = "/es-home"
print(json.dumps(installer._data_paths()))
"""


@pytest.mark.parametrize("value", ["/ssd/esdata", ["/ssd/a", "/ssd/b"], ["/one"]])
def test_data_paths_are_rallys(value: object, tmp_path: Path) -> None:
    # Rally 2.13's own reading of the variable (esrally/mechanic/provisioner.py) is the oracle.
    rally = subprocess.run(
        [str(peer_python_or_skip(RALLY)), "-c", _RALLY_DATA_PATHS, json.dumps({"data_paths": value})],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    car = resolve_car("defaults", {"data_paths": value})
    assert list(car.data_paths) == json.loads(rally.stdout.strip().splitlines()[-1])
    assert resolve_car("defaults").data_paths == ()


@pytest.mark.parametrize("value", [3, ["/a", 4], [], ""])
def test_data_paths_that_are_not_paths_are_refused_naming_the_option(value: object) -> None:
    with pytest.raises(ConfigError, match=r"data_paths must be a path or a list of paths.*--car-params"):
        _ = resolve_car("defaults", {"data_paths": value}).data_paths


@pytest.mark.parametrize("value", ["data", ["/ssd/a", "b/c"]])
def test_relative_data_paths_are_refused(value: object) -> None:
    # The node runs in its own directory and esbench stop in the user's: one path, two meanings.
    with pytest.raises(ConfigError, match=r"data_paths must name absolute paths"):
        _ = resolve_car("defaults", {"data_paths": value}).data_paths


def test_one_data_path_for_several_nodes_is_refused_before_anything_is_fetched(isolated_home: Path) -> None:
    settings = ProvisionSettings(car_params={"data_paths": "/ssd/esdata"}, nodes=2, offline=True)
    with pytest.raises(UserError, match=r"2 nodes on this machine cannot share it"):
        cluster.install(settings)


def test_stop_deletes_the_data_paths_but_never_a_directory_holding_the_home(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, holder = tmp_path / "esdata", isolated_home.parent
    (data / "nodes").mkdir(parents=True)
    inst = SimpleNamespace(car={"data_paths": [str(data), str(holder)]})
    cluster._delete_car_data_paths(inst)  # type: ignore[arg-type]
    # Rally's cleanup deletes the data path; the directory holding the esbench home is spared.
    assert not data.exists() and isolated_home.is_dir()
    monkeypatch.chdir(tmp_path)
    kept = tmp_path / "kept"
    kept.mkdir()
    cluster._delete_car_data_paths(SimpleNamespace(car={"data_paths": [str(tmp_path)]}))  # type: ignore[arg-type]
    assert kept.is_dir()  # the current directory is spared too
