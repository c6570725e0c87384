"""The ``osbenchmark`` compatibility package: what OpenSearch Benchmark workload plugins import
(OSB 2.4.0's module and class names), and OSB's registration API over esbench's registry."""

from __future__ import annotations

import bz2
from pathlib import Path

import pytest

from esbench.compat import shim
from esbench.compat.osbregistry import WorkloadProcessorAdapter, WorkloadRegistry
from esbench.compat.plugins import load_plugins
from esbench.compat.processors import DefaultTrackPreparator, effective_processors
from esbench.driver.worker.registry import Registry
from esbench.exceptions import DataError, EsbenchError, TrackError
from esbench.track.model import Track

shim.install()


def test_osbenchmark_resolves_to_the_compat_package_without_osb():
    import osbenchmark
    import osbenchmark.exceptions

    assert shim.uses_compat_api("osbenchmark")
    assert Path(osbenchmark.__file__).is_relative_to(shim.OSB_API_ROOT)
    # OSB's renamed exceptions are Rally's classes, so both spellings catch the same error.
    import esrally.exceptions

    assert osbenchmark.exceptions.BenchmarkError is esrally.exceptions.RallyError
    assert osbenchmark.exceptions.WorkloadConfigError is esrally.exceptions.TrackConfigError
    assert issubclass(osbenchmark.exceptions.DataError, DataError)
    assert issubclass(osbenchmark.exceptions.MappingsError, EsbenchError)


def test_the_modules_public_workloads_import():
    from osbenchmark.client import RequestContextHolder
    from osbenchmark.worker_coordinator.runner import PutSettings, Retry, Runner
    from osbenchmark.workload import TestProcedure, Workload
    from osbenchmark.workload.loader import Decompressor, DefaultWorkloadPreparator, Downloader
    from osbenchmark.workload.params import ParamSource

    assert issubclass(PutSettings, Runner) and issubclass(Retry, Runner)
    assert isinstance(DefaultWorkloadPreparator(), DefaultTrackPreparator)
    assert Workload.__name__ == "Track" and TestProcedure.__name__ == "Challenge"
    assert callable(Downloader(False, False).download) and callable(Decompressor().decompress)
    assert callable(ParamSource)
    holder = RequestContextHolder()
    holder.on_client_request_start()
    holder.on_client_request_end()


def test_a_name_osb_has_and_esbench_does_not_is_named_in_the_error(tmp_path: Path):
    (tmp_path / "workload.json").write_text("{}")
    (tmp_path / "workload.py").write_text("from osbenchmark.kafka_client import KafkaMessageProducer\n")
    with pytest.raises(TrackError, match=r"osbenchmark\.kafka_client"):
        load_plugins(Track(name="w", root=tmp_path, challenges=()), Registry())


def test_parse_helpers_follow_osb_rules():
    from osbenchmark.exceptions import ConfigurationError
    from osbenchmark.utils.parse import (
        parse_bool_parameter,
        parse_float_parameter,
        parse_int_parameter,
        parse_string_parameter,
    )

    assert parse_string_parameter("k", {"k": "v"}) == "v"
    # An empty string counts as missing.
    assert parse_string_parameter("k", {"k": ""}, "d") == "d"
    assert parse_int_parameter("k", {}, 5) == 5
    # isinstance checks: a bool is an int, an int is not a float.
    assert parse_int_parameter("k", {"k": True}) is True
    with pytest.raises(ConfigurationError, match="Value must be a float for param k"):
        parse_float_parameter("k", {"k": 1})
    # A falsy float default is no default (OSB tests "if default").
    with pytest.raises(ConfigurationError, match="Value cannot be None for param k"):
        parse_float_parameter("k", {}, 0.0)
    assert parse_bool_parameter("k", {"k": False}) is False
    with pytest.raises(ConfigurationError, match="Value must be a string for param k"):
        parse_string_parameter("k", {"k": 3})


def test_workload_registry_speaks_osb_over_the_esbench_registry():
    registry = Registry()
    osb = WorkloadRegistry(registry)
    assert osb.meta_data == {"benchmark_version": "2.4.0", "async_runner": True}

    class Doubler:
        def __init__(self):
            self.seen = []

        def on_after_load_workload(self, workload, **kwargs):
            self.seen.append(workload)

        def on_prepare_workload(self, workload, data_root_dir):
            yield (lambda: None), {}

    from osbenchmark.workload.loader import DefaultWorkloadPreparator

    doubler = Doubler()
    osb.register_workload_processor(doubler)
    osb.register_workload_processor(DefaultWorkloadPreparator())
    processors = effective_processors(registry.track_processors)
    # Rally's (and OSB's) rule: the first custom processor drops the default one; registered after
    # it, the default preparator stays. The OSB processor is adapted to Rally's hook names.
    assert isinstance(processors[0], WorkloadProcessorAdapter) and processors[0].processor is doubler
    assert isinstance(processors[1], DefaultTrackPreparator)
    processors[0].on_after_load_track("workload")
    assert doubler.seen == ["workload"]
    assert len(list(processors[0].on_prepare_track("workload", "/data"))) == 1

    def source():
        return {"gte": 1}

    osb.register_standard_value_source("range", "fare", source)
    osb.register_query_randomization_info("range", "range", [["gte", "gt"]], [])
    assert osb.standard_value_sources[("range", "fare")] is source
    assert osb.query_randomization_info["range"][0] == "range"


def test_decompressor_writes_the_documents_file(tmp_path: Path):
    from osbenchmark.exceptions import DataError as OsbDataError
    from osbenchmark.workload.loader import Decompressor

    text = b'{"a": 1}\n{"a": 2}\n'
    archive = tmp_path / "docs.json.bz2"
    archive.write_bytes(bz2.compress(text))
    Decompressor().decompress(str(archive), str(tmp_path / "docs.json"), len(text))
    assert (tmp_path / "docs.json").read_bytes() == text
    archive.write_bytes(bz2.compress(text))
    with pytest.raises(OsbDataError):
        Decompressor().decompress(str(archive), str(tmp_path / "other.json"), len(text) + 1)


def test_downloader_refuses_offline_and_without_base_url(tmp_path: Path):
    from osbenchmark.exceptions import DataError as OsbDataError
    from osbenchmark.exceptions import SystemSetupError
    from osbenchmark.workload.loader import Downloader

    with pytest.raises(OsbDataError, match="no base URL"):
        Downloader(False, False).download(None, None, str(tmp_path / "f.json"), None)
    with pytest.raises(SystemSetupError, match="offline"):
        Downloader(True, False).download("http://example.invalid", None, str(tmp_path / "f.json"), None)
