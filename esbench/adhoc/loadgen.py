"""INFINI Loadgen's YAML configuration (``loadgen.yml``) as ``templated-request`` streams.

The keys are those of Loadgen's ``AppConfig``/``LoaderConfig``/``RequestItem``/``Request``
structs (``domain.go``); the subset esbench runs is listed in :data:`TOP_KEYS`,
:data:`REQUEST_ITEM_KEYS`, :data:`REQUEST_KEYS` and :data:`RUNNER_KEYS`. Any other key is an
error naming the key and its line, never silently ignored. ``$[[env.NAME]]`` in URLs and
credentials is resolved from the environment, else from the ``env`` section (Loadgen's rule).

Credentials (``basic_auth``, ``runner.default_basic_auth``) become the race's client options, or
an ``Authorization`` header of the requests they differ for (:func:`with_credentials`); they are
never printed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from esbench.adhoc.track import Endpoint, Stream, split_url
from esbench.driver.params.template_assert import compile_assertion
from esbench.driver.params.template_source import basic_auth_header
from esbench.driver.params.template_vars import env_value, parse_variable
from esbench.exceptions import ConfigError

TOP_KEYS = frozenset({"env", "variables", "requests", "runner", "statsd"})
REQUEST_ITEM_KEYS = frozenset({"request", "assert"})
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
    }
)
RUNNER_KEYS = frozenset(
    {"total_rounds", "no_warm", "default_endpoint", "default_basic_auth", "disable_header_names_normalizing"}
)
_ENV = re.compile(r"\$\[\[\s*env\.([^\]\s]+)\s*\]\]")


@dataclass(frozen=True, kw_only=True)
class LoadgenConfig:
    """A parsed ``loadgen.yml``.

    Attributes:
        path: the file.
        streams: one per request, named ``<method> <path>`` (numbered when repeated).
        endpoints: the URL of each request.
        auths: the ``basic_auth`` of each request (``runner.default_basic_auth`` if it has none),
            or None; see :func:`with_credentials`.
        total_rounds: ``runner.total_rounds`` (requests per client), or None.
    """

    path: Path
    streams: tuple[Stream, ...]
    endpoints: tuple[Endpoint, ...]
    auths: tuple[tuple[str, str] | None, ...]
    total_rounds: int | None


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _check_keys(node: yaml.Node, allowed: frozenset[str], what: str, path: Path) -> None:
    if not isinstance(node, yaml.MappingNode):
        raise ConfigError(f"{path} line {_line(node)}: {what} must be a mapping.")
    for key_node, _ in node.value:
        key = key_node.value
        if key not in allowed:
            raise ConfigError(
                f"{path} line {_line(key_node)}: '{key}' in {what} is not supported by esbench load. "
                f"Supported keys there: {', '.join(sorted(allowed))}. Remove it (esbench never ignores a "
                f"key it does not run)."
            )


def _child(node: yaml.MappingNode, key: str) -> yaml.Node | None:
    for key_node, value in node.value:
        if key_node.value == key:
            return value
    return None


def _env(text: Any, env: Mapping[str, str], where: str) -> str:
    return _ENV.sub(lambda m: env_value(m.group(1), env, where=where), str(text))


def _auth(raw: Any, env: Mapping[str, str], where: str) -> tuple[str, str] | None:
    if not raw:
        return None
    if not isinstance(raw, Mapping) or set(raw) - {"username", "password"}:
        raise ConfigError(f"{where}: basic_auth takes 'username' and 'password'.")
    user = _env(raw.get("username", ""), env, where)
    if not user:
        return None
    return user, _env(raw.get("password", ""), env, where)


def load_config(path: Path) -> LoadgenConfig:
    """Read and check a Loadgen YAML file.

    Raises:
        ConfigError: unreadable or not YAML, not Loadgen's layout (no ``requests``), an unsupported
            key (with its line), a URL that is not http(s), a bad variable.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"Cannot read the Loadgen configuration {path}: {exc}.") from None
    try:
        root = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML: {exc}".replace("\n", " ")) from None
    if not isinstance(root, yaml.MappingNode) or not isinstance(data, Mapping) or "requests" not in data:
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
    env = {str(k): str(v) for k, v in (data.get("env") or {}).items()}
    runner_node = _child(root, "runner")
    runner = data.get("runner") or {}
    if runner_node is not None and runner:
        _check_keys(runner_node, RUNNER_KEYS, "'runner'", path)
    default_endpoint = (
        _env(runner["default_endpoint"], env, "runner.default_endpoint")
        if runner.get("default_endpoint")
        else None
    )
    default_auth = _auth(runner.get("default_basic_auth"), env, f"{path}: runner.default_basic_auth")

    variables_node = _child(root, "variables")
    if variables_node is not None:
        if not isinstance(variables_node, yaml.SequenceNode):
            raise ConfigError(f"{path} line {_line(variables_node)}: 'variables' must be a list.")
        # Checked here too, so that a bad variable is reported with its line.
        for node, raw in zip(variables_node.value, data["variables"], strict=True):
            parse_variable(raw, where=f"{path} line {_line(node)}", base_dir=path.parent, env=env)
    requests_node = _child(root, "requests")
    if not isinstance(requests_node, yaml.SequenceNode) or not requests_node.value:
        raise ConfigError(f"{path}: 'requests' must be a non-empty list of {{request: ...}} items.")

    streams: list[Stream] = []
    endpoints: list[Endpoint] = []
    auths: list[tuple[str, str] | None] = []
    names: dict[str, int] = {}
    for item_node, item in zip(requests_node.value, data["requests"], strict=True):
        _check_keys(item_node, REQUEST_ITEM_KEYS, "a requests item", path)
        request_node = _child(item_node, "request")
        if request_node is None:
            raise ConfigError(f"{path} line {_line(item_node)}: a requests item needs 'request'.")
        _check_keys(request_node, REQUEST_KEYS, "'request'", path)
        req = item["request"]
        where = f"{path} line {_line(request_node)}"
        if "url" not in req:
            raise ConfigError(f"{where}: the request has no 'url'.")
        endpoint = split_url(_env(req["url"], env, where), where=where, default_base=default_endpoint)
        endpoints.append(endpoint)
        auths.append(_auth(req.get("basic_auth"), env, where) or default_auth)
        params: dict[str, Any] = {
            "path": endpoint.target,
            "variables": list(data.get("variables") or []),
            "env": env,
        }
        body = req.get("body")
        if body is not None and body != "":
            params["body"] = str(body)
        if req.get("method"):
            params["method"] = str(req["method"]).upper()
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
        if item.get("assert") is not None:
            assert_node = _child(item_node, "assert")
            compile_assertion(item["assert"], where=f"{path} line {_line(assert_node or item_node)}: assert")
            params["assert"] = item["assert"]
        method = params.get("method") or ("POST" if body else "GET")
        name = f"{method} {endpoint.target.split('?', 1)[0]}"
        names[name] = names.get(name, 0) + 1
        streams.append(Stream(name=name if names[name] == 1 else f"{name} #{names[name]}", params=params))

    rounds = runner.get("total_rounds")
    return LoadgenConfig(
        path=path,
        streams=tuple(streams),
        endpoints=tuple(endpoints),
        auths=tuple(auths),
        total_rounds=int(rounds) if rounds and int(rounds) > 0 else None,
    )


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
