"""Rally's pipelines and which of them esbench serves (``esbench list pipelines``).

Rally (esrally/racecontrol.py ``list_pipelines``) lists its stable pipelines with a description:
``from-sources``, ``from-distribution`` and ``benchmark-only``; ``docker`` is registered with
``stable=False`` and left out of the list. esbench serves ``from-distribution`` and
``benchmark-only`` (:class:`esbench.settings.Pipeline`); the rows say so, and why the other two are
not served and what to use instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from esbench.settings import Pipeline


@dataclass(frozen=True, kw_only=True)
class PipelineInfo:
    """One pipeline: Rally's name and description; ``served`` False with ``instead`` for the ones
    esbench does not run."""

    name: str
    description: str
    served: bool
    instead: str = ""

    @property
    def listed_description(self) -> str:
        """Rally's description, followed for an unserved pipeline by why and what to use."""
        if self.served:
            return self.description
        return f"{self.description} Not served by esbench: {self.instead}"


#: Rally's order (the order its pipelines are registered in), docker last.
PIPELINES: tuple[PipelineInfo, ...] = (
    PipelineInfo(
        name="from-sources",
        description="Builds and provisions Elasticsearch, runs a benchmark and reports results.",
        served=False,
        instead=(
            "esbench does not build Elasticsearch (it needs the Elasticsearch source tree, Gradle "
            "and a JDK per branch); build the distribution yourself and race it with "
            "--distribution-path=ARCHIVE, or use --distribution-version."
        ),
    ),
    PipelineInfo(
        name=Pipeline.FROM_DISTRIBUTION.value,
        description=(
            "Downloads an Elasticsearch distribution, provisions it, runs a benchmark and reports results."
        ),
        served=True,
    ),
    PipelineInfo(
        name=Pipeline.BENCHMARK_ONLY.value,
        description="Assumes an already running Elasticsearch instance, runs a benchmark and reports results",
        served=True,
    ),
    PipelineInfo(
        name="docker",
        description=(
            "Runs a benchmark against the official Elasticsearch Docker container and reports results "
            "(experimental in Rally, which does not list it)."
        ),
        served=False,
        instead=(
            "esbench starts no containers; start the container yourself and race it with "
            "--pipeline=benchmark-only --target-hosts=HOST:PORT."
        ),
    ),
)


def pipeline_rows() -> list[tuple[str, str]]:
    """``(name, description)`` per pipeline, Rally's columns, for ``esbench list pipelines``."""
    return [(p.name, p.listed_description) for p in PIPELINES]
