"""Capacity planning on top of race control: sweeps, the knee, optimisers, find-max, sizing.

Every measurement here is an ordinary race (:func:`esbench.racecontrol.run_race`), stored with user
tags (``sweep:<id>``, ``sweep-param:<name>``, ``sweep-point:<value>``) so that ``esbench compare``
works on it later and a rerun of the same sweep reuses the stored race of a point. See
docs/planning.md.
"""
