"""Runs OpenSearch Benchmark's own runners against a recording fake client, in OSB's venv.

Input (stdin): a JSON list of scenarios ``{"steps": [{"type", "params"}], "responses": [[status,
body], ...]}``. The steps of a scenario share one OSB ``CompositeContext`` and one queue of canned
responses, answered in order. Output (stdout): per scenario ``{"requests": [...], "results":
[...]}``: every request as ``[method, path, query, body]`` and every step's outcome as OSB's
``execute_single`` sees it (the runner's return value, or ``{"raised": <class name>}``).

Not a test module: ``tests/unit/driver/test_osb_oracle.py`` runs it with
``/work/venvs/osb/bin/python``.
"""

import asyncio
import io
import json
import sys

import opensearchpy
from opensearchpy.exceptions import HTTP_EXCEPTIONS, TransportError
from opensearchpy.serializer import JSONSerializer
from osbenchmark.context import RequestContextHolder
from osbenchmark.worker_coordinator import runner


class RecordingTransport:
    """Stands in for opensearch-py's transport: records each request, answers from the queue."""

    def __init__(self, responses, client):
        self.responses = list(responses)
        self.requests = []
        self.serializer = JSONSerializer()
        self.client = client

    async def perform_request(self, method, url, headers=None, params=None, body=None):
        params = dict(params or {})
        ignore = params.pop("ignore", ())
        params.pop("request_timeout", None)
        if isinstance(ignore, int):
            ignore = (ignore,)
        # opensearch-py's query_params decorator hands over escaped values as bytes.
        params = {k: v.decode("utf-8") if isinstance(v, bytes) else v for k, v in params.items()}
        self.requests.append([method, url, params, body_as_json(body), dict(headers or {})])
        status, answer = self.responses.pop(0)
        if status >= 400 and status not in ignore:
            raise HTTP_EXCEPTIONS.get(status, TransportError)(status, json.dumps(answer), answer)
        if self.client.raw:
            return io.BytesIO(json.dumps(answer).encode("utf-8"))
        return answer


def body_as_json(body):
    if body is None:
        return None
    if isinstance(body, (bytes, bytearray)):
        body = body.decode("utf-8")
    if isinstance(body, str):
        lines = [line for line in body.split("\n") if line]
        try:
            return json.loads(body) if len(lines) == 1 else [json.loads(line) for line in lines]
        except ValueError:
            return body
    return json.loads(json.dumps(body, default=lambda v: v.tolist()))


class FakeClient(opensearchpy.AsyncOpenSearch):
    """opensearch-py's client (so its methods build OSB's paths) over the recording transport,
    with OSB's ``return_raw_response`` switch."""

    def __init__(self, responses):
        super().__init__(hosts=[{"host": "127.0.0.1", "port": 9}])
        self.raw = False
        self.transport = RecordingTransport(responses, self)

    def return_raw_response(self):
        self.raw = True


async def no_sleep(_seconds):
    return None


def jsonable(value):
    return json.loads(json.dumps(value, default=lambda v: v.tolist() if hasattr(v, "tolist") else str(v)))


async def run_scenario(scenario):
    client = FakeClient(scenario["responses"])
    results = []
    async with runner.CompositeContext():
        for step in scenario["steps"]:
            client.raw = False
            _ctx, token = RequestContextHolder.init_request_context()
            try:
                call = runner.runner_for(step["type"])
                value = await call({"default": client}, dict(step["params"]))
                results.append({"value": jsonable(value)})
            except Exception as exc:
                results.append({"raised": type(exc).__name__})
            finally:
                RequestContextHolder.restore_context(token)
    return {"requests": client.transport.requests, "results": results}


class NoWorkload:
    """The workload a param source gets: no indices, data streams or corpora."""

    indices = ()
    data_streams = ()
    corpora = ()


def run_param_source(scenario):
    """``{"param_source": op type, "params", "partition": [index, total], "calls": n}`` -> the
    params of up to ``calls`` calls (fewer when the source is exhausted)."""
    from osbenchmark.workload import params as osb_params

    cls = {
        "vector-search": osb_params.VectorSearchParamSource,
        "bulk-vector-data-set": osb_params.BulkVectorsFromDataSetParamSource,
    }[scenario["param_source"]]
    source = cls(NoWorkload(), dict(scenario["params"])).partition(*scenario["partition"])
    out = []
    for _ in range(scenario["calls"]):
        try:
            out.append(jsonable(source.params()))
        except StopIteration:
            break
    return {"params": out}


class RandomizerConfig:
    """The config OSB's QueryRandomizerWorkloadProcessor reads (``cfg.opts``)."""

    def __init__(self, values):
        self.values = values

    def opts(self, section, key, mandatory=True, default_value=None):
        return self.values.get(key, default_value)


def run_randomizer(scenario):
    """``{"randomize": op params, "op_name", "rf", "n", "alpha", "seed", "calls"}`` -> the params
    of each call (value sources: per field a counter, {"gte": c, "lte": c + 100})."""
    import random

    from osbenchmark.workload import loader
    from osbenchmark.workload import params as osb_params

    op = scenario["op_name"]
    processor = loader.QueryRandomizerWorkloadProcessor(
        RandomizerConfig(
            {
                "randomization.enabled": True,
                "randomization.repeat_frequency": scenario["rf"],
                "randomization.n": scenario["n"],
                "randomization.alpha": scenario["alpha"],
            }
        )
    )
    info = osb_params.get_query_randomization_info(op)
    params = scenario["randomize"]
    for field, _path in processor.extract_fields_and_paths(params, info):
        counter = iter(range(10**6))
        osb_params.register_standard_value_source(
            op, field, lambda c=counter: (lambda v: {"gte": v, "lte": v + 100})(next(c))
        )
        osb_params.generate_standard_values_if_absent(op, field, scenario["n"])
    random.seed(scenario["seed"])
    out = []
    for _ in range(scenario["calls"]):
        params = processor.get_randomized_values(
            NoWorkload(), params, query_randomization_info=info, op_name=op
        )
        out.append(jsonable(params))
    return {"params": out}


def main():
    runner.register_default_runners()
    asyncio.sleep = no_sleep  # the ML runners poll every 5 s
    scenarios = json.load(sys.stdin)
    out = []
    for s in scenarios:
        if "param_source" in s:
            out.append(run_param_source(s))
        elif "randomize" in s:
            out.append(run_randomizer(s))
        else:
            out.append(asyncio.run(run_scenario(s)))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
