"""Reports of races: the summary (:mod:`esbench.reporting.summary`), the comparison
(:mod:`esbench.reporting.compare`) and their shared table writers (:mod:`esbench.reporting.formats`)."""
