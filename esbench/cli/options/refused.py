"""Rally options whose meaning esbench does not serve, each with the paragraph that says why and
what to use instead (the option parses; the command then fails with exit 64 before doing anything).

Two kinds: meanings esbench will not have (building Elasticsearch from sources, Rally's rally.ini
and Docker builds), and meanings that other changes may still add.
"""

from __future__ import annotations

from esbench.cli.options.commands import NO_SOURCE_BUILD
from esbench.cli.options.entry import CliOption, Kind

_NO_SOURCE_BUILD = NO_SOURCE_BUILD
_RACE_INSTALL = ("race", "install")

REFUSED_OPTIONS: tuple[CliOption, ...] = (
    CliOption(
        name="revision",
        flags=("--revision",),
        commands=_RACE_INSTALL,
        help="Rally's source revision to build Elasticsearch from.",
        field="none (refused)",
        refused=_NO_SOURCE_BUILD,
    ),
    CliOption(
        name="source_build_method",
        flags=("--source-build-method",),
        commands=_RACE_INSTALL,
        help="Rally's way of building Elasticsearch from sources (default or docker).",
        field="none (refused)",
        refused=_NO_SOURCE_BUILD,
    ),
    CliOption(
        name="source_build_release",
        flags=("--source-build-release",),
        commands=("install",),
        kind=Kind.FLAG,
        help="Rally's release build of Elasticsearch from sources.",
        field="none (refused)",
        refused=_NO_SOURCE_BUILD,
    ),
    CliOption(
        name="effective_start_date",
        flags=("--effective-start-date",),
        commands=("race",),
        help="Rally's hidden option that backdates a race's timestamp.",
        field="none (refused)",
        refused="esbench stamps a race with the time it really started and does not backdate it (stored "
        "races and trends are ordered by when they ran). To group or order races by another date, "
        "give it as a user tag: --user-tags=date:2024-05-01.",
    ),
    CliOption(
        name="skip_rest_api_check",
        flags=("--skip-rest-api-check",),
        commands=("race",),
        kind=Kind.FLAG,
        help="Rally's hidden option that skips waiting for the cluster's REST API.",
        field="none (refused)",
        refused="esbench always checks that the cluster answers (and reads its version) before a race, "
        "because the track's rules, the report and the stored race depend on that version; there is no "
        "switch to skip it. Leave --skip-rest-api-check out; a cluster that does not answer fails the race "
        "with a message naming the host.",
    ),
)
