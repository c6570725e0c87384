"""Rally compatibility for track plugins.

* :mod:`esbench.compat.trackview`: Rally-shaped, mutable track objects (``esrally/track/track.py``)
  and the one conversion between them and the frozen :mod:`esbench.track.model`.
* :mod:`esbench.compat.shim`: makes ``import esrally`` resolve to the package in
  ``esbench/compat/rally_api/esrally`` while a track plugin is loaded, unless the real Rally is
  installed.
* :mod:`esbench.compat.processors`: applies ``register_track_processor`` processors in Rally's order.
* :mod:`esbench.compat.errors`: turns whatever a plugin raises into one paragraph naming the plugin
  file and line.
"""
