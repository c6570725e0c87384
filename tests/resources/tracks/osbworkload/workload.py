"""Workload plugin fixture: uses the OpenSearch Benchmark plugin API the public
opensearch-benchmark-workloads use (param sources, runners wrapped in Retry, workload processors,
standard value sources, parse helpers, RequestContextHolder, exceptions)."""

import random

from osbenchmark import exceptions
from osbenchmark.client import RequestContextHolder
from osbenchmark.utils.parse import parse_int_parameter, parse_string_parameter
from osbenchmark.worker_coordinator.runner import Retry, Runner
from osbenchmark.workload import loader
from osbenchmark.workload.params import ParamSource

request_context_holder = RequestContextHolder()


class CityQueryParamSource(ParamSource):
    """A search per call for one of the cities, with a term query."""

    def __init__(self, workload, params, **kwargs):
        super().__init__(workload, params, **kwargs)
        if not workload.indices:
            raise exceptions.WorkloadConfigError("the fixture needs an index")
        self._index = workload.indices[0].name
        self._cities = params.get("cities", ["Oslo", "Lima", "Pune"])

    def partition(self, partition_index, total_partitions):
        return self

    def params(self):
        return {
            "index": self._index,
            "body": {"query": {"term": {"city": random.choice(self._cities)}}},
            "detailed-results": True,
        }


class MarkIndex(Runner):
    """Indexes one marker document (so the test sees that the runner reached the node)."""

    async def __call__(self, opensearch, params):
        index = parse_string_parameter("index", params, "osb-fares")
        rank = parse_int_parameter("rank", params, 100000)
        request_context_holder.on_client_request_start()
        await opensearch.index(
            index=index, id="marker", body={"city": "marker", "rank": rank}, refresh="true"
        )
        request_context_holder.on_client_request_end()
        return {"weight": 1, "unit": "ops", "success": True}

    def __repr__(self):
        return "mark-index"


class DoubleSearchIterations(loader.WorkloadProcessor):
    """Doubles the iterations of every task whose operation is a search (a workload processor in
    OSB's words)."""

    def on_after_load_workload(self, input_workload, **kwargs):
        for test_procedure in input_workload.test_procedures:
            for task in test_procedure.schedule:
                for sub_task in task:
                    if sub_task.operation.type == "search" and sub_task.iterations:
                        sub_task.iterations *= 2


def fare_source():
    return {"gte": 1, "lte": 90}


def register(registry):
    assert registry.meta_data["async_runner"] is True
    registry.register_param_source("city-query-source", CityQueryParamSource)
    registry.register_runner("mark-index", Retry(MarkIndex(), retry_until_success=False), async_runner=True)
    registry.register_workload_processor(loader.DefaultWorkloadPreparator())
    registry.register_workload_processor(DoubleSearchIterations())
    registry.register_standard_value_source("fares-in-city", "fare", fare_source)
