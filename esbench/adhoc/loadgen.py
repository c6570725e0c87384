"""INFINI Loadgen's configuration (``loadgen.yml``, or a ``.dsl`` file read by
:mod:`esbench.adhoc.loadgen_dsl`) as ``templated-request`` streams.

The keys are those of Loadgen's ``AppConfig``/``LoaderConfig``/``RequestItem``/``Request``
structs (``domain.go``); the subset esbench runs is listed in :data:`TOP_KEYS`,
:data:`REQUEST_ITEM_KEYS`, :data:`REQUEST_KEYS` and :data:`RUNNER_KEYS`. Any other key is an
error naming the key and its line, never silently ignored. ``$[[env.NAME]]`` in URLs and
credentials is resolved from the environment, else from the ``env`` section (Loadgen's rule).

Credentials (``basic_auth``, ``runner.default_basic_auth``) become the race's client options, or
an ``Authorization`` header of the requests they differ for (:func:`with_credentials`); they are
never printed. A DSL file starts from the ``env``, ``runner`` and ``variables`` of a YAML
configuration when one is given (Loadgen reads ``loadgen.yml`` before the DSL, ``main.go``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from esbench.adhoc.loadgen_dsl import parse_dsl
from esbench.adhoc.loadgen_runner import RunnerOptions, runner_options
from esbench.adhoc.track import Endpoint, Stream, split_url
from esbench.driver.worker.params.template_assert import compile_assertion
from esbench.driver.worker.params.template_source import basic_auth_header
from esbench.driver.worker.params.template_vars import env_value, parse_variable
from esbench.exceptions import ConfigError

TOP_KEYS = frozenset({"env", "variables", "requests", "runner", "statsd"})
#: Loadgen's ``RequestItem`` keys esbench runs (``register`` and ``assert_dsl`` are not).
REQUEST_ITEM_KEYS = frozenset({"request", "assert", "sleep"})
REQUEST_KEYS = frozenset(
    {
        "method",
        "url",
        "body",
        "body_repeat_times",
        "headers",
        "basic_auth",
        "runtime_variables",
        "runtime_body_line_variables",
        "disable_header_names_normalizing",
        "simple_mode",
        "execute_repeat_times",
    }
)
#: Every key of Loadgen's ``RunnerConfig`` (``domain.go``); :class:`RunnerOptions` says what each does.
RUNNER_KEYS = frozenset(
    {
        "total_rounds",
        "no_warm",
        "valid_status_codes_during_warmup",
        "assert_invalid",
        "continue_on_assert_invalid",
        "skip_invalid_assert",
        "assert_error",
        "log_requests",
        "log_status_codes",
        "benchmark_only",
        "duration_in_us",
        "no_stats",
        "no_size_stats",
        "metric_sample_size",
        "reset_context",
        "default_endpoint",
        "default_basic_auth",
        "disable_header_names_normalizing",
    }
)
logger = logging.getLogger(__name__)
_ENV = re.compile(r"\$\[\[\s*env\.([^\]\s]+)\s*\]\]")


@dataclass(frozen=True, kw_only=True)
class LoadgenConfig:
    """A parsed Loadgen configuration (``loadgen.yml`` or a ``.dsl`` file).

    Attributes:
        path: the file.
        streams: one per request, named ``<method> <path>`` (numbered when repeated).
        endpoints: the URL of each request.
        auths: the ``basic_auth`` of each request (``runner.default_basic_auth`` if it has none),
            or None; see :func:`with_credentials`.
        repeats: ``execute_repeat_times`` of each request (1 when unset).
        runner: the ``runner`` section (:mod:`esbench.adhoc.loadgen_runner`).
    """

    path: Path
    streams: tuple[Stream, ...]
    endpoints: tuple[Endpoint, ...]
    auths: tuple[tuple[str, str] | None, ...]
    repeats: tuple[int, ...]
    runner: RunnerOptions

    @property
    def total_rounds(self) -> int | None:
        """``runner.total_rounds`` (rounds per client), or None."""
        return self.runner.total_rounds


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _check_keys(node: yaml.Node, allowed: frozenset[str], what: str, path: Path) -> None:
    if not isinstance(node, yaml.MappingNode):
        raise ConfigError(f"{path} line {_line(node)}: {what} must be a mapping.")
    for key_node, _ in node.value:
        _check_key(key_node.value, allowed, what, f"{path} line {_line(key_node)}")


def _check_key(key: object, allowed: frozenset[str], what: str, where: str) -> None:
    if key not in allowed:
        raise ConfigError(
            f"{where}: '{key}' in {what} is not a Loadgen key esbench runs. Keys there: "
            f"{', '.join(sorted(allowed))}. Remove it (esbench never ignores a key it does not run)."
        )


def _child(node: yaml.MappingNode, key: str) -> yaml.Node | None:
    for key_node, value in node.value:
        if key_node.value == key:
            child: yaml.Node = value
            return child
    return None


def _env(text: object, env: Mapping[str, str], where: str) -> str:
    return _ENV.sub(lambda m: env_value(m.group(1), env, where=where), str(text))


def _auth(raw: object, env: Mapping[str, str], where: str) -> tuple[str, str] | None:
    if not raw:
        return None
    if not isinstance(raw, Mapping) or set(raw) - {"username", "password"}:
        raise ConfigError(f"{where}: basic_auth takes 'username' and 'password'.")
    user = _env(raw.get("username", ""), env, where)
    if not user:
        return None
    return user, _env(raw.get("password", ""), env, where)


@dataclass(frozen=True)
class _Source:
    """A configuration's data with where each request and variable was written."""

    path: Path
    data: Mapping[str, Any]
    request_where: tuple[str, ...]
    variable_where: tuple[str, ...]
    assert_where: tuple[str, ...]


def _read_yaml(path: Path, *, base: bool = False) -> _Source:
    """A YAML configuration; ``base``: one a DSL file starts from, which needs no requests."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"Cannot read the Loadgen configuration {path}: {exc}.") from None
    try:
        root = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML: {exc}".replace("\n", " ")) from None
    if (
        not isinstance(root, yaml.MappingNode)
        or not isinstance(data, Mapping)
        or ("requests" not in data and not (base and set(data) & {"env", "runner", "variables"}))
    ):
        raise ConfigError(
            f"{path} is not an INFINI Loadgen configuration: it needs a top-level 'requests' list (and "
            f"usually 'variables'), e.g. requests: [{{request: {{method: GET, url: http://HOST:9200/_search}}}}]."
        )
    _check_keys(root, TOP_KEYS, "the top level", path)
    statsd = data.get("statsd")
    if isinstance(statsd, Mapping) and statsd.get("enabled", False):
        node = _child(root, "statsd")
        raise ConfigError(
            f"{path} line {_line(node) if node else '?'}: statsd output (statsd.enabled: true) is not "
            f"supported: esbench reports and stores the race itself. Set enabled: false or remove 'statsd'."
        )
    runner_node = _child(root, "runner")
    if runner_node is not None and data.get("runner"):
        _check_keys(runner_node, RUNNER_KEYS, "'runner'", path)
    variables_node = _child(root, "variables")
    variable_where: list[str] = []
    if variables_node is not None and data.get("variables") is not None:
        if not isinstance(variables_node, yaml.SequenceNode):
            raise ConfigError(f"{path} line {_line(variables_node)}: 'variables' must be a list.")
        variable_where = [f"{path} line {_line(n)}" for n in variables_node.value]
    requests_node = _child(root, "requests")
    request_where: list[str] = []
    assert_where: list[str] = []
    if isinstance(requests_node, yaml.SequenceNode):
        for item_node in requests_node.value:
            _check_keys(item_node, REQUEST_ITEM_KEYS, "a requests item", path)
            request_node = _child(item_node, "request")
            if request_node is None:
                raise ConfigError(f"{path} line {_line(item_node)}: a requests item needs 'request'.")
            _check_keys(request_node, REQUEST_KEYS, "'request'", path)
            request_where.append(f"{path} line {_line(request_node)}")
            assert_node = _child(item_node, "assert")
            assert_where.append(f"{path} line {_line(assert_node or item_node)}")
    return _Source(path, data, tuple(request_where), tuple(variable_where), tuple(assert_where))


def _read_dsl(path: Path) -> _Source:
    doc = parse_dsl(path)
    request_where = tuple(f"{path} line {n}" for n in doc.request_lines)
    for where, item, lines in zip(request_where, doc.data["requests"], doc.option_lines, strict=True):
        for key in item:
            at = f"{path} line {lines[key]}" if key in lines else where
            _check_key(key, REQUEST_ITEM_KEYS, "the options after a request", at)
        for key in item["request"]:
            line = lines.get(f"request.{key}")
            _check_key(key, REQUEST_KEYS, "'request'", f"{path} line {line}" if line else where)
    runner = doc.data.get("runner")
    if runner is not None:
        if not isinstance(runner, Mapping):
            raise ConfigError(f"{path}: 'runner' takes an object of runner options.")
        for key in runner:
            line = doc.top_lines.get(f"runner.{key}") or doc.top_lines.get("runner")
            _check_key(key, RUNNER_KEYS, "'runner'", f"{path} line {line}" if line else str(path))
    variables = doc.data.get("variables")
    if variables is not None and not isinstance(variables, list):
        raise ConfigError(f"{path}: 'variables' takes a list of variables.")
    lines = doc.top_lines

    def variable_line(i: int) -> int | str | None:
        return (
            lines.get(f"variables.{i}.name")
            or lines.get(f"variables.{i}.type")
            or lines.get("variables", "?")
        )

    variable_where = tuple(f"{path} line {variable_line(i)}" for i in range(len(variables or ())))
    return _Source(path, doc.data, request_where, variable_where, request_where)


def _absolute_paths(variables: list[object], base_dir: Path) -> list[object]:
    out = []
    for raw in variables:
        if isinstance(raw, Mapping) and raw.get("path") and not Path(str(raw["path"])).is_absolute():
            raw = {**raw, "path": str(base_dir / str(raw["path"]))}
        out.append(raw)
    return out


def _merged(dsl: _Source, base: _Source) -> _Source:
    """A DSL file run with the YAML configuration's env, runner and variables (Loadgen's
    ``parseDSL`` starts from the app configuration, ``loadgen.yml``; the DSL's own values win
    and its requests replace the YAML's)."""
    env = {**(base.data.get("env") or {}), **(dsl.data.get("env") or {})}
    runner = {**(base.data.get("runner") or {}), **(dsl.data.get("runner") or {})}
    own = list(dsl.data.get("variables") or [])
    names = {v.get("name") for v in own if isinstance(v, Mapping)}
    inherited = [
        v
        for v in _absolute_paths(list(base.data.get("variables") or []), base.path.parent)
        if not (isinstance(v, Mapping) and v.get("name") in names)
    ]
    where = tuple(
        w
        for v, w in zip(base.data.get("variables") or [], base.variable_where, strict=False)
        if not (isinstance(v, Mapping) and v.get("name") in names)
    )
    data = {"env": env, "runner": runner, "variables": inherited + own, "requests": dsl.data["requests"]}
    return _Source(dsl.path, data, dsl.request_where, where + dsl.variable_where, dsl.assert_where)


def is_dsl(path: Path) -> bool:
    """Whether ``path`` is read as Loadgen's DSL (its name ends in ``.dsl``)."""
    return path.suffix.lower() == ".dsl"


def load_config(
    path: Path, *, base: Path | None = None, dsl: bool | None = None, default_endpoint: str | None = None
) -> LoadgenConfig:
    """Read and check a Loadgen YAML or DSL file.

    Args:
        path: the file.
        base: for a DSL file, the YAML configuration whose ``env``, ``runner`` and ``variables``
            it starts from (Loadgen's ``loadgen.yml``), or None.
        dsl: read as DSL (True) or YAML (False); None = by the name (:func:`is_dsl`).
        default_endpoint: ``scheme://host:port`` for URLs without a host when the file has no
            ``runner.default_endpoint`` (the first ``--target-hosts``), or None.

    Raises:
        ConfigError: unreadable file, not YAML / a DSL syntax error, not Loadgen's layout, a key
            Loadgen does not have (with its line), a URL that is not http(s), a bad variable or
            assertion.
    """
    source = _read_dsl(path) if (is_dsl(path) if dsl is None else dsl) else _read_yaml(path)
    if base is not None:
        source = _merged(source, _read_yaml(base, base=True))
    data = source.data
    env = {str(k): str(v) for k, v in (data.get("env") or {}).items()}
    runner = data.get("runner") or {}
    options = runner_options(runner, where=str(path))
    if runner.get("default_endpoint"):
        default_endpoint = _env(runner["default_endpoint"], env, f"{path}: runner.default_endpoint")
    default_auth = _auth(runner.get("default_basic_auth"), env, f"{path}: runner.default_basic_auth")
    variables = list(data.get("variables") or [])
    # Checked here too, so that a bad variable is reported with its line.
    for where, raw in zip(source.variable_where, variables, strict=False):
        parse_variable(raw, where=where, base_dir=path.parent, env=env)
    requests = data.get("requests")
    if not isinstance(requests, list) or not requests:
        raise ConfigError(f"{path}: 'requests' must be a non-empty list of {{request: ...}} items.")

    streams: list[Stream] = []
    endpoints: list[Endpoint] = []
    auths: list[tuple[str, str] | None] = []
    repeats: list[int] = []
    names: dict[str, int] = {}
    for where, assert_where, item in zip(source.request_where, source.assert_where, requests, strict=True):
        req = item["request"]
        if "url" not in req:
            raise ConfigError(f"{where}: the request has no 'url'.")
        endpoint = split_url(_env(req["url"], env, where), where=where, default_base=default_endpoint)
        endpoints.append(endpoint)
        auths.append(_auth(req.get("basic_auth"), env, where) or default_auth)
        repeat = req.get("execute_repeat_times") or 1
        if not isinstance(repeat, int) or isinstance(repeat, bool):
            raise ConfigError(f"{where}: 'execute_repeat_times' must be a whole number, got {repeat!r}.")
        repeats.append(max(repeat, 1))
        params = _request_params(req, item, endpoint, variables, env, options, where, assert_where)
        method = params.get("method") or ("POST" if params.get("body") else "GET")
        name = f"{method} {endpoint.target.split('?', 1)[0]}"
        names[name] = names.get(name, 0) + 1
        streams.append(Stream(name=name if names[name] == 1 else f"{name} #{names[name]}", params=params))
    return LoadgenConfig(
        path=path,
        streams=tuple(streams),
        endpoints=tuple(endpoints),
        auths=tuple(auths),
        repeats=tuple(repeats),
        runner=options,
    )


def _request_params(
    req: Mapping[str, Any],
    item: Mapping[str, Any],
    endpoint: Endpoint,
    variables: list[object],
    env: Mapping[str, str],
    options: RunnerOptions,
    where: str,
    assert_where: str,
) -> dict[str, Any]:
    """The ``templated-request`` params of one request item."""
    params: dict[str, Any] = {"path": endpoint.target, "variables": variables, "env": dict(env)}
    if req.get("method"):
        params["method"] = str(req["method"]).upper()
    if req.get("simple_mode"):
        # Loadgen's simple mode sends the method and the URL only (loader.go prepareRequest): no
        # body, no headers; the response is still asserted.
        params["method"] = params.get("method") or "GET"
    else:
        _body_and_headers(req, params, where)
    if item.get("assert") is not None and not options.benchmark_only:
        try:
            compile_assertion(item["assert"], where=f"{assert_where}: assert")
            params["assert"] = item["assert"]
        except ConfigError as exc:
            if not options.skip_invalid_assert:
                raise
            logger.warning("%s (skipped: runner.skip_invalid_assert is true)", exc)
    sleep = item.get("sleep")
    if sleep is not None:
        pause = sleep.get("sleep_in_milli_seconds") if isinstance(sleep, Mapping) else None
        if (
            not isinstance(pause, int)
            or isinstance(pause, bool)
            or pause < 0
            or set(sleep) - {"sleep_in_milli_seconds"}
        ):
            raise ConfigError(
                f"{where}: 'sleep' takes {{sleep_in_milli_seconds: N}} (N >= 0), got {sleep!r}."
            )
        params["sleep-after"] = pause / 1000.0
    if options.log_requests or options.log_statuses:
        params["log-requests"] = True if options.log_requests else sorted(options.log_statuses)
    return params


def _body_and_headers(req: Mapping[str, Any], params: dict[str, Any], where: str) -> None:
    body = req.get("body")
    if body is not None and body != "":
        params["body"] = str(body)
    if req.get("body_repeat_times"):
        params["body-repeat-times"] = req["body_repeat_times"]
    for key in ("runtime_variables", "runtime_body_line_variables"):
        if req.get(key):
            params[key.replace("_", "-")] = req[key]
    headers: dict[str, str] = {}
    for entry in req.get("headers") or []:
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{where}: 'headers' is a list of {{Name: value}} mappings.")
        headers.update({str(k): str(v) for k, v in entry.items()})
    if headers:
        params["headers"] = headers


def with_credentials(
    cfg: LoadgenConfig, *, client_has_credentials: bool
) -> tuple[tuple[Stream, ...], tuple[str, str] | None]:
    """The streams and the credentials the client options should get.

    The first request's credentials become the client's (so the cluster checks use them too),
    unless the client options already have credentials (``--client-options``, ESBENCH_USERNAME...):
    then, and for requests whose credentials differ, an ``Authorization`` header carries them.
    """
    shared = None if client_has_credentials else next((a for a in cfg.auths if a), None)
    streams = []
    for stream, auth in zip(cfg.streams, cfg.auths, strict=True):
        if auth and auth != shared:
            headers = dict(stream.params.get("headers") or {})
            headers["Authorization"] = basic_auth_header(*auth)
            stream = Stream(name=stream.name, params={**stream.params, "headers": headers})
        streams.append(stream)
    return tuple(streams), shared
