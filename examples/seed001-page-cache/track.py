"""Param source of the seed001-page-cache example: a geo-distance query around a random dictionary line.

Rally's param source contract (``register_param_source``; ``partition`` and ``params``). Every call
draws a fresh ``lat,lon`` from ``locations.txt`` so repeated queries miss the request and query
caches and the node has to read postings and doc values, from the page cache or from disk.
"""

import random
from pathlib import Path


class RandomLocationQuery:
    def __init__(self, track, params, **kwargs):
        path = Path(__file__).resolve().parent / params.get("dictionary", "locations.txt")
        self._points = [line.strip().split(",") for line in path.read_text().splitlines() if line.strip()]
        self._index = params["index"]
        self._distance = params.get("distance", "20km")
        self._size = params.get("size", 10)
        self.infinite = True

    def partition(self, partition_index, total_partitions):
        return self

    def params(self):
        lat, lon = random.choice(self._points)
        point = {"lat": float(lat), "lon": float(lon)}
        return {
            "index": self._index,
            "cache": False,
            "body": {
                "size": self._size,
                "query": {"geo_distance": {"distance": self._distance, "location": point}},
                "sort": [{"_geo_distance": {"location": point, "order": "asc"}}],
            },
        }


def register(registry):
    registry.register_param_source("random-location-query", RandomLocationQuery)
