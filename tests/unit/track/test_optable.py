"""The table of operation types ties together what used to be eight lists.

A runner class without a descriptor, or a descriptor naming a runner, param source or Rally class
that does not exist, fails here; so does a derived list (optypes, the requirements catalogue, the
``esrally`` shim, the default registry) that disagrees with the table.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Iterable

import pytest

import esbench.driver.worker.runners as runners_package
from esbench.compat import shim
from esbench.driver.worker.params.base import ParamSource
from esbench.driver.worker.refs import resolve
from esbench.driver.worker.registry import default_registry
from esbench.driver.worker.runners import Retry, Runner
from esbench.requirements.catalog import OPERATION_MODULES
from esbench.track import optypes
from esbench.track.optable import OPERATION_TYPES, OpType, Retries


def runner_classes() -> dict[str, str]:
    """Every built-in runner class (a ``Runner`` subclass with its own ``name``) -> ``module:Class``."""
    found = {}
    for info in pkgutil.iter_modules(runners_package.__path__, runners_package.__name__ + "."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            own = cls.__module__ == module.__name__ and "name" in vars(cls)
            if own and issubclass(cls, Runner) and cls is not Runner:
                found[cls.name] = f"{cls.__module__}:{cls.__name__}"
    return found


def table_problems(table: Iterable[OpType], runners: dict[str, str]) -> list[str]:
    """What is wrong between ``table`` and the runner classes ``runners`` (name -> reference)."""
    shim.install()
    rally_runner = importlib.import_module("esrally.driver.runner")
    table = tuple(table)
    problems = []
    names = [op.name for op in table]
    problems += [f"{n}: two descriptors" for n in sorted({n for n in names if names.count(n) > 1})]
    problems += [f"{n}: runner {ref} has no descriptor" for n, ref in runners.items() if n not in names]
    for op in table:
        if op.runner is None:
            if not op.refused:
                problems.append(f"{op.name}: no runner and no reason for refusing it")
            continue
        try:
            cls = resolve(op.runner)
            if not (inspect.isclass(cls) and issubclass(cls, Runner) and cls.name == op.name):
                problems.append(f"{op.name}: {op.runner} is not the Runner named '{op.name}'")
        except (ImportError, AttributeError, ValueError) as exc:
            problems.append(f"{op.name}: runner {op.runner}: {exc}")
        if op.param_source is not None:
            try:
                if not issubclass(resolve(op.param_source), ParamSource):
                    problems.append(f"{op.name}: {op.param_source} is not a ParamSource")
            except (ImportError, AttributeError, ValueError) as exc:
                problems.append(f"{op.name}: param source {op.param_source}: {exc}")
        if op.rally_runner is not None:
            try:
                if getattr(rally_runner, op.rally_runner).operation_type != op.name:
                    problems.append(f"{op.name}: esrally.driver.runner.{op.rally_runner} runs another type")
            except AttributeError as exc:
                problems.append(f"{op.name}: Rally class {op.rally_runner}: {exc}")
    return problems


def test_every_runner_has_a_descriptor_and_every_descriptor_resolves():
    runners = runner_classes()
    # Rally's 59 and esbench's templated-request, OSB's 16 with a runner and OSB's 5 refused ones.
    assert len(runners) == len([op for op in OPERATION_TYPES if op.runner is not None]) == 76
    assert len(OPERATION_TYPES) == 81
    assert table_problems(OPERATION_TYPES, runners) == []


def test_the_check_finds_a_runner_without_descriptor_and_descriptors_naming_nothing():
    runners = runner_classes()
    broken = [op for op in OPERATION_TYPES if op.name != "refresh"]
    broken += [
        OpType(name="nope", runner="esbench.driver.worker.runners.misc:Nope"),
        OpType(name="sleep2", runner="esbench.driver.worker.runners.misc:Sleep"),
        OpType(name="x", runner="no.such.module:X"),
        OpType(name="y", runner="esbench.driver.worker.runners.misc:Sleep", param_source="misc.Sleep"),
        OpType(name="z", runner="esbench.driver.worker.runners.misc:Sleep", rally_runner="NoSuchRunner"),
    ]
    problems = "\n".join(table_problems(broken, runners))
    assert "refresh: runner esbench.driver.worker.runners.indices:Refresh has no descriptor" in problems
    assert "nope: runner esbench.driver.worker.runners.misc:Nope: module" in problems
    assert "sleep2: esbench.driver.worker.runners.misc:Sleep is not the Runner named 'sleep2'" in problems
    assert "x: runner no.such.module:X: No module named 'no'" in problems
    assert "y: param source misc.Sleep: 'misc.Sleep' is not a 'module:attribute' reference." in problems
    assert "z: Rally class NoSuchRunner:" in problems


def test_rally_types_match_the_esrally_shim_enum_in_order():
    shim.install()
    rally_track = importlib.import_module("esrally.track.track")
    members = [(m.to_hyphenated_string(), m.value[0], m.admin_op) for m in rally_track.OperationType]
    assert members == [(op.name, op.rally_id, op.admin) for op in OPERATION_TYPES if op.rally_id is not None]
    assert len(members) == 59 and len({m[1] for m in members}) == 59
    assert rally_track.OperationType.EsqlProfile.value == (59, False)


def test_derived_lists_agree_with_the_table():
    refused = {op.name for op in OPERATION_TYPES if op.refused}
    assert {op.name for op in OPERATION_TYPES} - {"templated-request"} - refused == optypes.BUILTIN_TYPES
    assert optypes.is_admin("create-search-pipeline") and not optypes.is_admin("vector-search")
    assert optypes.is_admin("create-ml-job") and not optypes.is_admin("search")
    assert not optypes.is_builtin("templated-request") and optypes.by_name("templated-request") is not None
    assert dict(OPERATION_MODULES) == {op.name: op.module for op in OPERATION_TYPES if op.module}
    assert (
        OPERATION_MODULES["create-transform"] == "x-pack-transform"
        and "esql-profile" not in OPERATION_MODULES
    )
    registry = default_registry()
    assert registry.operation_types() == tuple(sorted(op.name for op in OPERATION_TYPES if not op.refused))
    for op in OPERATION_TYPES:
        if op.refused:
            continue
        runner = registry.runner(op.name)
        assert isinstance(runner, Retry) == (op.retries is not Retries.NEVER), op.name
        if isinstance(runner, Retry):
            assert runner.retry_until_success == (op.retries is Retries.UNTIL_SUCCESS), op.name


@pytest.mark.parametrize("ref", ["bulk", ":Bulk", "esbench.driver.worker.runners.bulk:"])
def test_a_reference_must_name_module_and_attribute(ref):
    with pytest.raises(ValueError, match="is not a 'module:attribute' reference"):
        resolve(ref)
