"""Options of the commands on stored races: ``compare``, ``list races``, ``delete race``, and the
annotation commands (Rally's ``compare``, ``list``, ``delete`` and ``add`` parsers in
``esrally/rally.py``).

``list races`` filters the local results store and (``--source=metrics-store``) the Rally-layout
metrics store alike (:mod:`esbench.results.race_listing`).
"""

from __future__ import annotations

from pathlib import Path

import click

from esbench.cli import _params
from esbench.cli.options.entry import CliOption, Kind
from esbench.reporting.formats import REPORT_FORMATS, NumbersAlign, ReportFormat

#: Rally's default ``list races --limit``.
DEFAULT_LIST_LIMIT = 10

STORED_OPTIONS: tuple[CliOption, ...] = (
    CliOption(
        name="baseline",
        flags=("--baseline",),
        osb=("-b",),
        commands=("compare",),
        required=True,
        metavar="RACE",
        help="Race id, unique id prefix, or tag:KEY:VALUE (all races with that user tag).",
        field="the baseline side of the comparison",
    ),
    CliOption(
        name="contenders",
        flags=("--contender",),
        osb=("-c",),
        commands=("compare",),
        required=True,
        multiple=True,
        metavar="RACE",
        help="Like --baseline; repeat to compare several contenders with the baseline.",
        field="the contender sides of the comparison",
    ),
    CliOption(
        name="fmt",
        flags=("--report-format",),
        osb=("--results-format",),
        commands=("compare",),
        type=click.Choice(REPORT_FORMATS),
        default=ReportFormat.TEXT.value,
        show_default=True,
        help="html: one self-contained page of charts and the table; png: one chart (see docs/reporting.md).",
        field="the comparison's format",
    ),
    CliOption(
        name="report_file",
        flags=("--report-file",),
        osb=("--results-file",),
        commands=("compare",),
        type=click.Path(dir_okay=False, path_type=Path),
        help="Append the report also to this file (it is printed too, as Rally and OSB do; the json "
        "format, which they lack, is written anew; html and png are written here).",
        field="the comparison's file",
    ),
    CliOption(
        name="report_numbers_align",
        flags=("--report-numbers-align",),
        osb=("--results-numbers-align",),
        commands=("compare",),
        type=click.Choice([a.value for a in NumbersAlign]),
        help="Alignment of the number columns of the text and markdown comparison (right, center, left, "
        "decimal) [default: right-aligned text, as esbench always printed it].",
        field="render_comparison(numbers_align=...)",
    ),
    CliOption(
        name="show_in_report",
        flags=("--show-in-report",),
        osb=("--show-in-results",),
        commands=("compare",),
        help="Rally's compare option 'whether to include the comparison in the results file'.",
        field="none (refused)",
        refused="Rally's compare accepts --show-in-report and OSB's --show-in-results but neither reads it "
        "(Rally's ComparisonReporter, esrally/reporter.py, and OSB 2.4.0's ComparisonResultsPublisher, "
        "osbenchmark/publisher.py, have no such setting), so there is no behaviour to match; esbench's "
        "compare "
        "shows every metric either race has. Leave the option out; to choose what is written where, use "
        "--report-format and --report-file.",
    ),
    CliOption(
        name="user_tag",
        flags=("--user-tags", "--user-tag"),
        commands=("list races",),
        type=_params.TAG_FILTER,
        multiple=True,
        help="Only races with this user tag KEY:VALUE (KEY:VALUE,KEY:VALUE, a JSON object, a .json file, or "
        "repeated; the same key twice means either value).",
        field="the race filter of list races",
    ),
    CliOption(
        name="track",
        flags=("--track",),
        commands=("list races",),
        help="Only races of this track.",
        field="the race filter of list races",
    ),
    CliOption(
        name="limit",
        flags=("--limit",),
        commands=("list races",),
        type=click.IntRange(min=0),
        default=DEFAULT_LIST_LIMIT,
        show_default=True,
        help="Show at most N races, newest first (0: all).",
        field="the number of races list races shows",
    ),
    CliOption(
        name="fmt",
        flags=("--format",),
        commands=("list races",),
        type=click.Choice([ReportFormat.TEXT.value, ReportFormat.JSON.value]),
        default=ReportFormat.TEXT.value,
        show_default=True,
        help='text (a table) or json: {"races": [...]} with the keys of Rally\'s race documents.',
        field="the output of list races",
    ),
    CliOption(
        name="challenge",
        flags=("--challenge",),
        osb=("--test-procedure",),
        commands=("list races",),
        help="Only races of this challenge.",
        field="the race filter of list races",
    ),
    CliOption(
        name="benchmark_name",
        flags=("--benchmark-name",),
        commands=("list races",),
        help="Only races whose user tag 'name' or 'benchmark-name' has this value (Rally's rule).",
        field="the race filter of list races",
    ),
    CliOption(
        name="from_date",
        flags=("--from-date",),
        commands=("list races",),
        metavar="YYYYMMDD",
        help="Only races started on or after this UTC day.",
        field="the race filter of list races",
    ),
    CliOption(
        name="to_date",
        flags=("--to-date",),
        commands=("list races",),
        metavar="YYYYMMDD",
        help="Only races started on or before this UTC day.",
        field="the race filter of list races",
    ),
    CliOption(
        name="ids",
        flags=("--id",),
        commands=("delete race",),
        help="Ids (or unique id prefixes) of the races to delete, comma-separated (Rally's spelling; "
        "they may also be given as arguments).",
        field="the races delete race deletes",
    ),
    CliOption(
        name="dry_run",
        flags=("--dry-run",),
        commands=("delete race",),
        kind=Kind.FLAG,
        help="Only say which races would be deleted.",
        field="delete race deletes nothing",
    ),
    *(
        CliOption(
            name=flag[2:].replace("-", "_"),
            flags=(flag,),
            commands=("delete race",),
            help=f"Rally's delete takes {flag} (from its track parser) and never uses it.",
            field="none (refused)",
            refused="Rally's delete accepts the track repository options but does not use them: deleting a "
            "race needs no track. Leave the option out: esbench delete race --id=RACE[,RACE...].",
        )
        for flag in ("--track-repository", "--track-path", "--track-revision")
    ),
)
