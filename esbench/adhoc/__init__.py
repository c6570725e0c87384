"""Ad-hoc load without a track: ``esbench query`` (esperf, seed 001) and ``esbench load``
(INFINI Loadgen YAML, seed 002, and Loadgen's DSL). Both build an in-memory
:class:`esbench.track.model.Track` of ``templated-request`` tasks and run it as an ordinary race."""
