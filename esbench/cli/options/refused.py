"""Rally options whose meaning esbench does not serve, each with the paragraph that says why and
what to use instead (the option parses; the command then fails with exit 64 before doing anything).

Two kinds: meanings esbench will not have (building Elasticsearch from sources, Rally's rally.ini
and Docker builds), and meanings that other changes are adding (teams, plugins, assertions,
annotations: "not yet supported").
"""

from __future__ import annotations

from esbench.cli.options.entry import CliOption, Kind

_NO_SOURCE_BUILD = (
    "esbench does not build Elasticsearch from sources: it provisions released distributions "
    "(--distribution-version=X from Elastic's download server or Maven) or an archive you give it. "
    "Build the distribution yourself (./gradlew localDistro in an Elasticsearch checkout) and pass "
    "the archive with --distribution-path=FILE, or race a cluster you started with "
    "--pipeline=benchmark-only --target-hosts=HOST:PORT."
)
_TEAMS = (
    "Rally teams (car and plugin definitions from a team repository or directory) are not yet supported "
    "by esbench (another change adds them). Until then cars come from esbench's built-in cars and "
    "<esbench home>/cars (see 'esbench list cars'); leave this option out."
)
_PLUGINS = (
    "installing Elasticsearch plugins on provisioned nodes is not yet supported by esbench (another change "
    "adds it). Until then install the plugins on a cluster yourself and race it with "
    "--pipeline=benchmark-only --target-hosts=HOST:PORT."
)

_RACE_INSTALL_BUILD = ("race",)
_TEAM_COMMANDS = ("race",)

REFUSED_OPTIONS: tuple[CliOption, ...] = (
    CliOption(
        name="revision",
        flags=("--revision",),
        commands=_RACE_INSTALL_BUILD,
        help="Rally's source revision to build Elasticsearch from.",
        field="none (refused)",
        refused=_NO_SOURCE_BUILD,
    ),
    CliOption(
        name="source_build_method",
        flags=("--source-build-method",),
        commands=_RACE_INSTALL_BUILD,
        help="Rally's way of building Elasticsearch from sources (default or docker).",
        field="none (refused)",
        refused=_NO_SOURCE_BUILD,
    ),
    CliOption(
        name="source_build_release",
        flags=("--source-build-release",),
        commands=(),
        kind=Kind.FLAG,
        help="Rally's release build of Elasticsearch from sources.",
        field="none (refused)",
        refused=_NO_SOURCE_BUILD,
    ),
    CliOption(
        name="target_os",
        flags=("--target-os",),
        commands=(),
        help="Rally's target operating system of a source build.",
        field="none (refused)",
        refused=_NO_SOURCE_BUILD,
    ),
    CliOption(
        name="target_arch",
        flags=("--target-arch",),
        commands=(),
        help="Rally's target CPU architecture of a source build.",
        field="none (refused)",
        refused=_NO_SOURCE_BUILD,
    ),
    CliOption(
        name="team_path",
        flags=("--team-path",),
        osb=("--cluster-config-path",),
        commands=_TEAM_COMMANDS,
        help="Rally's directory of car and plugin definitions.",
        field="none (refused)",
        refused=_TEAMS,
    ),
    CliOption(
        name="team_repository",
        flags=("--team-repository",),
        osb=("--cluster-config-repository",),
        commands=_TEAM_COMMANDS,
        help="Rally's team repository.",
        field="none (refused)",
        refused=_TEAMS,
    ),
    CliOption(
        name="team_revision",
        flags=("--team-revision",),
        osb=("--cluster-config-revision",),
        commands=_TEAM_COMMANDS,
        help="Rally's revision of the team repository.",
        field="none (refused)",
        refused=_TEAMS,
    ),
    CliOption(
        name="elasticsearch_plugins",
        flags=("--elasticsearch-plugins",),
        osb=("--opensearch-plugins",),
        commands=_RACE_INSTALL_BUILD,
        help="Rally's plugins to install on the provisioned nodes.",
        field="none (refused)",
        refused=_PLUGINS,
    ),
    CliOption(
        name="plugin_params",
        flags=("--plugin-params",),
        commands=_RACE_INSTALL_BUILD,
        help="Rally's variables of the plugins to install.",
        field="none (refused)",
        refused=_PLUGINS,
    ),
    CliOption(
        name="enable_assertions",
        flags=("--enable-assertions",),
        commands=("race",),
        kind=Kind.FLAG,
        help="Rally's checks of the 'assertions' of a track's tasks.",
        field="none (refused)",
        refused="checking the 'assertions' of a track's tasks is not yet supported by esbench (another "
        "change adds it). Until then leave --enable-assertions out; the race runs without the checks.",
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
