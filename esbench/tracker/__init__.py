"""Making tracks from a live cluster (Rally's ``create-track``); see :mod:`esbench.tracker.create`.

Beside the pipeline: it reads a cluster through the driver's client and writes a track directory that
the ``track`` stage then loads like any other.
"""

from esbench.tracker.create import create_track

__all__ = ["create_track"]
