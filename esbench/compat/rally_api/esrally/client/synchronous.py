"""Rally's ``esrally.client.synchronous`` (2.13): the synchronous client plugins and track tests use."""

from __future__ import annotations

from typing import Any

from elasticsearch import Elasticsearch


class RallySyncElasticsearch(Elasticsearch):
    """elasticsearch-py's synchronous client, as Rally subclasses it; Rally's extra keyword
    ``distribution_version`` / ``distribution_flavor`` are accepted and kept as attributes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.distribution_version = kwargs.pop("distribution_version", None)
        self.distribution_flavor = kwargs.pop("distribution_flavor", None)
        super().__init__(*args, **kwargs)
