"""Validated click parameter types: every option value is checked when the command line is parsed.

A bad value (empty, negative, of the wrong shape, naming a missing file) is then one message that
names the option, printed before the command does anything (no corpus is prepared, no node is
started first). The parsers are the ones the commands use afterwards (``parse_client_options``,
``parse_params``, ``host_urls``...), imported only when a value is checked, so ``--help`` stays
light (tests/unit/test_cli_lazy_imports.py).

Options declared with plain text get their type from :data:`OPTION_TYPES` by parameter name
(:func:`apply_option_types`, called once when the command line is built), so ``--target-hosts``
is checked the same way in every command; a plain number (``type=float``/``int``) may not be
negative; paths may not be empty (:class:`CheckedPath`); other declared types are kept. Each
type also says which bad values the option sweep (tests/unit/cli/test_option_sweep.py) tries on
it: :attr:`ValidatedText.wrong_example`, :attr:`ValidatedText.missing_file_example` and
:attr:`ValidatedText.connects` (the value names a host that the command connects to).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from esbench.exceptions import EsbenchError

Check = Callable[[str], object]

if TYPE_CHECKING:
    # click >= 8.2 makes ParamType generic in its value; 8.1 (still supported) cannot subscript it.
    _TextParamType = click.ParamType[Any]
else:
    _TextParamType = click.ParamType


class ValidatedText(_TextParamType):
    """Text whose value is checked by ``check`` (which raises an :class:`EsbenchError`); the value
    the command gets is the text itself, unchanged.

    Args:
        name: the metavar-like name click shows (``hosts``, ``params``...).
        check: called with the stripped text unless it is empty; raises ``EsbenchError`` (or
            ``ValueError``) with a message saying what is wrong and how to fix it.
        empty_ok: an empty value means "none" (the option's default is the empty string).
        wrong_example / missing_file_example: a value of the wrong shape / naming a file that does
            not exist, for the option sweep (None: the class does not apply to this type).
        connects: the command connects to the host(s) the value names.
        numbers: the value holds numbers, so a negative one is a bad value the sweep tries (and
            ``check`` says what an empty value lacks: it gets the empty text).
        json_file: the value may name a ``.json`` file, whose ``~`` is expanded in the value the
            command gets (Rally's ``opts.to_dict``/``csv_to_list`` open it with ``io.normalize_path``).
        csv: a Rally list option (``opts.csv_to_list``): a JSON array of strings, or a ``.json`` file
            holding one, becomes the comma-separated text of its items before ``check`` sees it, so
            the command reads every form as the list it already splits at commas.
    """

    def __init__(
        self,
        name: str,
        check: Check | None = None,
        *,
        empty_ok: bool = False,
        wrong_example: str | None = None,
        missing_file_example: str | None = None,
        connects: bool = False,
        numbers: bool = False,
        json_file: bool = False,
        csv: bool = False,
    ) -> None:
        self.name = name
        self.check = check
        self.empty_ok = empty_ok
        self.wrong_example = wrong_example
        self.missing_file_example = missing_file_example
        self.connects = connects
        self.numbers = numbers
        self.json_file = json_file or csv
        self.csv = csv

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        if not value.strip():
            if self.empty_ok:
                return value
            if not self.numbers:
                self.fail("the value is empty: give one, or leave the option out (default).", param, ctx)
        try:
            from esbench.cli._values import normalized

            option = next(iter(getattr(param, "opts", ())), self.name)
            value = normalized(value, option=option, json_file=self.json_file, csv=self.csv)
        except EsbenchError as exc:
            self.fail(_without_option_prefix(str(exc), param), param, ctx)
        if not value.strip() and self.empty_ok:
            return value  # "none": a JSON list without items too
        if not value.strip() and not self.numbers:
            self.fail("the list is empty: give at least one item, or leave the option out.", param, ctx)
        if self.check is not None:
            try:
                self.check(value.strip())
            except (EsbenchError, ValueError) as exc:
                self.fail(_without_option_prefix(str(exc), param), param, ctx)
        return value


def _without_option_prefix(message: str, param: click.Parameter | None) -> str:
    # The parsers' messages often start with the option name, which click's "Invalid value for
    # '--x':" already says.
    for name in getattr(param, "opts", ()):
        if message.startswith(f"{name}: "):
            return message[len(name) + 2 :]
    return message


def _hosts(text: str) -> None:
    from esbench.driver.transport.client import host_urls
    from esbench.driver.transport.clusters import is_json_form, parse_target_hosts

    if is_json_form(text):  # Rally's clusters by name (issue 39)
        parse_target_hosts(text)
        return
    hosts = [h.strip() for h in text.split(",")]
    if any(not h for h in hosts):
        raise ValueError(f"'{text}' has an empty host between commas; write HOST:PORT[,HOST:PORT...].")
    host_urls(hosts, use_ssl=False)


def _client_options(text: str) -> None:
    from esbench.driver.transport.client import parse_client_options

    parse_client_options(text)


def _params(option: str) -> Check:
    def check(text: str) -> None:
        from esbench.track.params import parse_params

        parse_params(text, option=option)

    return check


def _task_filters(option: str) -> Check:
    def check(text: str) -> None:
        from esbench.driver.coordinator.filters import parse_task_filters

        parse_task_filters(tuple(s.strip() for s in text.split(",") if s.strip()), option=option)

    return check


def _user_tags(text: str) -> None:
    from esbench.cli._tags import parse_user_tags

    parse_user_tags(text)


def _tag_filter(text: str) -> None:
    from esbench.cli._tags import parse_tag_filter

    parse_tag_filter([text])


def _ray_address(text: str) -> None:
    from esbench.driver.coordinator.pools.ray_pool import parse_ray_address

    parse_ray_address(text)


def _telemetry(text: str) -> None:
    from esbench.telemetry.cli import telemetry_settings

    telemetry_settings(text, "")


def _metrics_store(text: str) -> None:
    from esbench.results.metrics_store import MetricsStoreSettings

    MetricsStoreSettings.from_url(text)


def number_list(convert: Callable[[str], float], option: str) -> Check:
    """A check of a comma-separated list of numbers (``1,5,10``), each passed through ``convert``."""

    def check(text: str) -> None:
        from esbench.planning.dimensions import parse_values

        parse_values(text, option=option, convert=convert)

    return check


def positive_int(text: str) -> int:
    """A whole number >= 1 from ``text``; raises ValueError (``int()``'s, or "must be at least 1")."""
    value = int(text)
    if value < 1:
        raise ValueError("must be at least 1")
    return value


def positive_float(text: str) -> float:
    """A number > 0 from ``text``; raises ValueError (``float()``'s, or "must be above 0")."""
    value = float(text)
    if not value > 0:
        raise ValueError("must be above 0")
    return value


def _retention(option: str) -> Check:
    def check(text: str) -> None:
        from esbench.planning.sizing import parse_days

        parse_days(text, option=option)

    return check


def _slo(text: str) -> None:
    from esbench.planning.slo import parse_slo

    parse_slo(text)


def _percentiles(option: str) -> Check:
    def check(text: str) -> None:
        from esbench.reporting.percentiles import parse_percentiles

        parse_percentiles(text, option=option)

    return check


def percentiles_type(option: str) -> ValidatedText:
    """Comma-separated percentiles in [0, 100] (:func:`esbench.reporting.percentiles.parse_percentiles`)."""
    return ValidatedText("percentiles", _percentiles(option), empty_ok=True, wrong_example="50,ninety")


def _list_type(convert: Callable[[str], float], option: str) -> ValidatedText:
    return ValidatedText("list", number_list(convert, option), wrong_example="1,two", numbers=True)


def _runtime_jdk(text: str) -> None:
    if text == "bundled":
        return
    if not text.isdigit() or int(text) < 8:
        raise ValueError(
            f"'{text}' is not a JDK major version: write a number such as 17 or 21, or 'bundled' for "
            "the JDK that comes with the distribution."
        )


def _race_id(text: str) -> None:
    from esbench.settings import check_race_id

    check_race_id(text)


def _installation_id(text: str) -> None:
    from esbench.settings import check_race_id

    check_race_id(text, option="--installation-id")


def _build_type(text: str) -> None:
    if text == "docker":
        raise ValueError(
            "esbench does not run Elasticsearch in Docker; it installs the distribution archive (tar). "
            "Leave --build-type out, or start the container yourself and race it with "
            "--pipeline=benchmark-only."
        )
    if text != "tar":
        raise ValueError(f"'{text}' is not a build type; Rally's are tar and docker (esbench: tar).")


def _target_os(text: str) -> None:
    if text not in ("linux", "darwin"):
        raise ValueError(
            f"'{text}': esbench downloads the .tar.gz archives of Elastic's download server, which exist for "
            "linux and darwin (Windows' is a .zip: download it yourself and use --distribution-path)."
        )


def _target_arch(text: str) -> None:
    if text not in ("x86_64", "aarch64"):
        raise ValueError(f"'{text}' is not an architecture of Elastic's archives; use x86_64 or aarch64.")


#: Text that must not be empty (names, ids, versions) and has no other rule the CLI can check.
NAME = ValidatedText("text")
#: ``HOST:PORT[,HOST:PORT...]`` or URLs.
HOSTS = ValidatedText("hosts", _hosts, wrong_example="127.0.0.1:notaport", connects=True, json_file=True)
#: The metrics store: http(s) URLs or ``HOST:PORT``
#: (:class:`esbench.results.metrics_store.MetricsStoreSettings`).
URL = ValidatedText("url", _metrics_store, wrong_example="ftp://127.0.0.1:9200", connects=True)
#: ``HOST:PORT`` of a Ray head.
RAY_ADDRESS = ValidatedText("address", _ray_address, wrong_example="ray://127.0.0.1:10001", connects=True)
#: ``--runtime-jdk``: a JDK major version or ``bundled``.
RUNTIME_JDK = ValidatedText("jdk", _runtime_jdk, wrong_example="seventeen")
#: ``--race-id``: the id of a new race (a directory name under <esbench home>/races).
RACE_ID = ValidatedText("id", _race_id, wrong_example="../escape")
#: ``install --installation-id``: the id of a new installation (a directory name).
INSTALLATION_ID = ValidatedText("id", _installation_id, wrong_example="../escape")
#: ``install --build-type``: Rally's ``tar`` (``docker`` is refused).
BUILD_TYPE = ValidatedText("type", _build_type, wrong_example="rpm")
#: ``download --target-os`` / ``--target-arch``: Elastic's archive names.
TARGET_OS = ValidatedText("os", _target_os, wrong_example="plan9")
TARGET_ARCH = ValidatedText("arch", _target_arch, wrong_example="sparc")
#: ``--load-driver-hosts``: host names or IPs (Rally's default ``localhost``).
DRIVER_HOSTS = ValidatedText("hosts", empty_ok=True, csv=True)
CLIENT_OPTIONS = ValidatedText(
    "options",
    _client_options,
    empty_ok=True,
    wrong_example="timeout:soon",
    missing_file_example="use_ssl:true,ca_certs:'/nonexistent/esbench/ca.pem'",
    json_file=True,
)
#: ``--user-tags`` of a race: key:value pairs, a JSON object or a .json file (:mod:`esbench.cli._tags`).
USER_TAGS = ValidatedText("tags", _user_tags, empty_ok=True, wrong_example="no-colon", json_file=True)
#: A filter of races by user tag (``list races --user-tag``): a key may come twice.
TAG_FILTER = ValidatedText("tags", _tag_filter, wrong_example="no-colon", json_file=True)
TELEMETRY = ValidatedText("devices", _telemetry, empty_ok=True, wrong_example="no-such-device", csv=True)
#: A Rally list of names (``--car``, ``--elasticsearch-plugins``, ``--indices``...): comma-separated,
#: a JSON array or a .json file holding one (Rally's ``opts.csv_to_list``); not empty.
NAMES = ValidatedText("names", csv=True)


def params_type(option: str) -> ValidatedText:
    """``k:v`` list, inline JSON or a ``.json`` file (:func:`esbench.track.params.parse_params`)."""
    return ValidatedText(
        "params",
        _params(option),
        empty_ok=True,
        wrong_example='{"unclosed": ',
        missing_file_example="/nonexistent/esbench/params.json",
        json_file=True,
    )


def filters_type(option: str) -> ValidatedText:
    """Task filters: ``NAME``, ``type:OPTYPE``, ``tag:TAG`` (:mod:`esbench.driver.coordinator.filters`)."""
    return ValidatedText(
        "filters", _task_filters(option), empty_ok=True, wrong_example="kind:search", csv=True
    )


#: Types of esbench's own plain-text options, by parameter name (see the module docstring); the
#: options of the option table (:mod:`esbench.cli.options`) get the type their entry declares.
OPTION_TYPES: dict[str, click.ParamType[Any]] = {
    "clients_list": _list_type(positive_int, "--clients"),
    "bulk_list": _list_type(positive_int, "--bulk-size"),
    "nodes_list": _list_type(positive_int, "--nodes"),
    "rates_list": _list_type(positive_float, "--target-throughput"),
    "hot": ValidatedText("period", _retention("--hot"), wrong_example="ten days", numbers=True),
    "warm": ValidatedText("period", _retention("--warm"), wrong_example="ten days", numbers=True),
    "cold": ValidatedText("period", _retention("--cold"), wrong_example="ten days", numbers=True),
    "slo": ValidatedText("slo", _slo, wrong_example="latency is low"),
}


def option_types() -> dict[str, click.ParamType[Any]]:
    """:data:`OPTION_TYPES` and the validated-text types of the option table, by parameter name."""
    from esbench.cli.options import OPTIONS

    table: dict[str, click.ParamType[Any]] = {}
    for entry in OPTIONS:
        # An option name declared for several commands keeps its first (the race's) type.
        if isinstance(t := entry.param_type(), ValidatedText):
            table.setdefault(entry.name, t)
    return {**table, **OPTION_TYPES}


class RallyChoice(click.Choice):  # type: ignore[type-arg]
    """A :class:`click.Choice` of esbench's values that also knows Rally's: ``aliases`` are taken
    as the value they name (a peer's spelling of one of esbench's values), ``refused`` values fail
    with their reason, and any other value with ``otherwise`` (when given) instead of click's list.

    The value the command gets is one of ``choices``.
    """

    def __init__(
        self,
        choices: list[str],
        *,
        aliases: dict[str, str] | None = None,
        refused: dict[str, str] | None = None,
        otherwise: str | None = None,
    ) -> None:
        super().__init__(choices)
        self.aliases = dict(aliases or {})
        self.refused = dict(refused or {})
        self.otherwise = otherwise

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            if value in self.aliases:
                return self.aliases[value]
            if value in self.refused:
                self.fail(f"'{value}' is Rally's, refused: {self.refused[value]}", param, ctx)
            if value not in self.choices and self.otherwise is not None:
                self.fail(f"'{value}' {self.otherwise}", param, ctx)
        return super().convert(value, param, ctx)


def pipeline_type() -> RallyChoice:
    """``--pipeline``: esbench's pipelines; Rally's ``from-sources`` and ``docker`` are refused
    with their reason (Rally's pipelines: ``esrally/racecontrol.py``)."""
    from esbench.settings import PIPELINES

    return RallyChoice(
        list(PIPELINES),
        refused={
            "from-sources": "esbench does not build Elasticsearch from sources: it provisions released "
            "distributions. Use --pipeline=from-distribution with --distribution-version=X, or "
            "--distribution-path=FILE with an archive you built (./gradlew localDistro), or "
            "--pipeline=benchmark-only against a cluster you started.",
            "docker": "esbench does not run Elasticsearch in Docker. Start the container yourself "
            "(docker run -p 9200:9200 docker.elastic.co/elasticsearch/elasticsearch:X) and race it with "
            "--pipeline=benchmark-only --target-hosts=127.0.0.1:9200, or use --pipeline=from-distribution.",
        },
    )


def distribution_repository_type() -> RallyChoice:
    """``--distribution-repository``: esbench's repositories, with Rally's and OSB's ``release`` (their
    default: the product's release server, Elastic's download server or OpenSearch's; the provisioning
    settings resolve it by flavor); other names would be [distributions] entries of Rally's rally.ini."""
    from esbench.provision.settings import REPOSITORIES

    return RallyChoice(
        list(REPOSITORIES),
        otherwise="is not a distribution repository esbench knows. In Rally it would name a [distributions] "
        "entry of rally.ini, which esbench does not read. Use release (the product's release server: "
        "Elastic's download server, or OpenSearch's for OpenSearch), elastic (Elastic's download server; "
        "$ESBENCH_DISTRIBUTION_URL sets another URL template with {version}, {os} and {arch}), "
        "maven, auto, or give an archive with --distribution-path=FILE.",
    )


class CheckedPath(click.Path):
    """:class:`click.Path` that refuses an empty value (click turns it into ``.``, the current
    directory, when the path need not exist) and expands a leading ``~`` (``~user``), which the shell
    leaves alone after ``--option=``: Rally 2.13 expands it with ``io.normalize_path`` for
    ``--track-path``, ``--team-path`` (``esrally/rally.py``), ``--report-file``
    (``esrally/reporter.py``) and create-track's ``--output-path`` (``esrally/tracker/tracker.py``);
    esbench does so for every path option."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail("the path is empty: give a file name, or leave the option out.", param, ctx)
        if isinstance(value, str):
            from esbench.cli._values import expand_home

            value = expand_home(value)
        return super().convert(value, param, ctx)


def _checked_path(declared: click.Path) -> CheckedPath:
    checked = CheckedPath.__new__(CheckedPath)
    checked.__dict__.update(declared.__dict__)
    return checked


def apply_option_types(group: click.Group) -> None:
    """Give every plain-text parameter of ``group``'s commands (recursively) its validated type:
    :func:`option_types` by name, else :data:`NAME` (not empty); paths become :class:`CheckedPath`.
    Other declared types are kept."""
    types = option_types()
    for command in group.commands.values():
        if isinstance(command, click.Group):
            apply_option_types(command)
            continue
        _apply(command, types)


def _apply(command: click.Command, types: dict[str, click.ParamType[Any]]) -> None:
    for param in command.params:
        if isinstance(param, click.Option) and param.is_flag:
            continue
        if isinstance(param.type, click.types.StringParamType):
            param.type = types.get(param.name or "", NAME)
        elif param.type is click.FLOAT:
            param.type = click.FloatRange(min=0)
        elif param.type is click.INT:
            param.type = click.IntRange(min=0)
        elif type(param.type) is click.Path:
            param.type = _checked_path(param.type)
