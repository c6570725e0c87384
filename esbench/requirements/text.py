"""The "Requirements" section of ``esbench info``: what the track needs and, given a cluster, what it
lacks."""

from __future__ import annotations

from collections.abc import Sequence

from esbench.console import tabulate
from esbench.requirements.check import RequirementsReport, is_present, missing_paragraph
from esbench.requirements.needs import Need

#: The advice printed by ``esbench info`` under a missing-modules paragraph.
INFO_HINT = (
    "A race against this cluster records the requests of these tasks as failed (with --on-error=abort it "
    "refuses to start); benchmark a cluster with these modules "
    "(without --target-hosts esbench installs the full default distribution with "
    "--distribution-repository=elastic), or leave the tasks out with --exclude-tasks."
)


def requirements_text(needs: Sequence[Need], report: RequirementsReport | None = None) -> str:
    """The section as text: one row per need (module, feature, where), plus a ``Cluster`` column and
    the missing-modules paragraph when ``report`` (a check against a cluster) is given."""
    lines = ["Requirements:", "-------------", ""]
    if not needs:
        lines.append("The track needs no module beyond what every Elasticsearch node has.")
        if report is not None:
            lines.append(f"The cluster ({report.capabilities.nodes} node(s)) can run it.")
        return "\n".join(lines) + "\n"
    headers = ["Module", "Used for", "Where"]
    rows = []
    for need in needs:
        row = [need.module, need.feature, need.where]
        if report is not None:
            row.append("present" if is_present(need, report.capabilities) else "MISSING")
        rows.append(row)
    if report is not None:
        headers.append("Cluster")
    lines += [tabulate(rows, headers=headers, tablefmt="simple"), ""]
    if report is None:
        lines.append("Add --target-hosts=HOST:PORT to check a cluster for these modules.")
    elif report.ok:
        lines.append(f"The cluster ({report.capabilities.nodes} node(s)) has every module the track needs.")
    else:
        lines.append(missing_paragraph(report, hint=INFO_HINT))
    return "\n".join(lines) + "\n"
