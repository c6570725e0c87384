from __future__ import annotations

from pathlib import Path

import pytest

from esbench.exceptions import ConfigError, NotFound
from esbench.provision.cars import list_cars, resolve_car


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
