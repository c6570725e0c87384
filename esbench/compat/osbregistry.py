"""The registry an OpenSearch Benchmark workload plugin's ``register(registry)`` gets.

OSB 2.4.0 (``osbenchmark/workload/loader.py`` ``WorkloadPluginReader``) offers Rally's
registration functions under OSB's words: ``register_workload_processor`` for Rally's
``register_track_processor``, plus ``register_standard_value_source`` and
``register_query_randomization_info`` (the value sources of OSB's query randomization), and
``meta_data`` with ``benchmark_version``. :class:`WorkloadRegistry` offers those names on top of
esbench's registry; a workload processor is run through :class:`WorkloadProcessorAdapter`, which
gives it Rally's hook names.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

from esbench.compat.osbclient import osb_client
from esbench.compat.processors import DefaultTrackPreparator
from esbench.driver.pluginhost import PluginRegistry

#: The OSB release whose plugin API esbench implements.
OSB_API_VERSION = "2.4.0"


class WorkloadProcessorAdapter:
    """Runs an OSB workload processor (``on_after_load_workload``, ``on_prepare_workload``) where
    esbench calls Rally's hooks (``on_after_load_track``, ``on_prepare_track``).

    Args:
        processor: the plugin's processor.
    """

    def __init__(self, processor: Any) -> None:
        self.processor = processor

    def on_after_load_track(self, track: Any) -> None:
        """OSB: ``on_after_load_workload(workload)``."""
        self.processor.on_after_load_workload(track)

    def on_prepare_track(
        self, track: Any, data_root_dir: str
    ) -> Generator[tuple[Callable[..., Any], dict[str, Any]], None, None] | None:
        """OSB: ``on_prepare_workload(workload, data_root_dir)``."""
        result: Generator[tuple[Callable[..., Any], dict[str, Any]], None, None] | None = (
            self.processor.on_prepare_workload(track, data_root_dir)
        )
        return result


class WorkloadRegistry:
    """OSB's registration API over esbench's ``registry`` (a
    :class:`~esbench.driver.pluginhost.PluginRegistry`).

    Attributes:
        standard_value_sources: ``(operation name, field name)`` -> value source function, as the
            plugin registered them (OSB uses them only with ``--randomization-enabled``).
        query_randomization_info: operation name -> ``(query name, parameter name options,
            optional parameters)``.
    """

    def __init__(self, registry: PluginRegistry) -> None:
        self._registry = registry
        self.standard_value_sources: dict[tuple[str, str], Callable[[], Any]] = {}
        self.query_randomization_info: dict[str, tuple[str, list[Any], list[Any]]] = {}

    @property
    def meta_data(self) -> dict[str, Any]:
        """What OSB tells plugins about itself: its version and that runners may be async."""
        return {"benchmark_version": OSB_API_VERSION, "async_runner": True}

    def register_runner(self, name: Any, runner: Any, **kwargs: Any) -> None:
        """Rally's and OSB's ``register_runner``; the runner is called with opensearch-py's
        transport (:func:`esbench.compat.osbclient.osb_client`), as OSB calls it."""
        self._registry.register_runner(name, runner, client_view=osb_client, **kwargs)

    def register_param_source(self, name: str, param_source: Any) -> None:
        """Rally's and OSB's ``register_param_source``."""
        self._registry.register_param_source(name, param_source)

    def register_scheduler(self, name: str, scheduler: Any) -> None:
        """Rally's and OSB's ``register_scheduler``."""
        self._registry.register_scheduler(name, scheduler)

    def register_workload_processor(self, processor: Any) -> None:
        """OSB's name of ``register_track_processor``; OSB's ``DefaultWorkloadPreparator`` is
        esbench's default preparator (kept as is, so Rally's rule about dropping the default
        applies), any other processor runs through :class:`WorkloadProcessorAdapter`."""
        if isinstance(processor, DefaultTrackPreparator):
            self._registry.register_track_processor(processor)
        else:
            self._registry.register_track_processor(WorkloadProcessorAdapter(processor))

    def register_standard_value_source(
        self, op_name: str, field_name: str, standard_value_source: Callable[[], Any]
    ) -> None:
        """Keep OSB's value source for ``field_name`` of operation ``op_name`` and hand it to the
        race's registry, whose query randomizer draws from it (``--randomization-enabled``)."""
        self.standard_value_sources[(op_name, field_name)] = standard_value_source
        register = getattr(self._registry, "register_standard_value_source", None)
        if register is not None:
            register(op_name, field_name, standard_value_source)

    def register_query_randomization_info(
        self,
        op_name: str,
        query_name: str,
        parameter_name_options_list: list[Any],
        optional_parameters: list[Any],
    ) -> None:
        """Keep OSB's description of which parameters of ``op_name`` randomization may change."""
        self.query_randomization_info[op_name] = (
            query_name,
            parameter_name_options_list,
            optional_parameters,
        )
        register = getattr(self._registry, "register_query_randomization_info", None)
        if register is not None:
            register(op_name, query_name, parameter_name_options_list, optional_parameters)
