"""Deterministic generator of the ``eventdata`` corpus: HTTP access logs of a software vendor's site.

Output: NDJSON, one document per line, fields in the original corpus' order (agent, useragent,
geoip, clientip, referrer, request, bytes, verb, response, httpversion, @timestamp, message); see
``/docs/corpora.md`` for the fields, distributions and measured statistics.

Determinism: the corpus is a sequence of chunks of :attr:`EventDataGenerator.chunk_size`
documents. Chunk ``k`` is generated from its own random streams (seeded with the string
``"esbench-eventdata:<version>:<seed>:<k>:<stream>"``, which Python hashes with SHA-512, so the
output is identical on every platform and Python version), and its timestamps lie in its own
window of ``chunk_size / docs_per_second`` seconds. Chunks can therefore be generated in parallel,
and the first ``n`` documents of any corpus are the corpus of ``n`` documents (the ``-1k``
test-mode variant is simply the first 1,000 documents).

Speed: lines are pasted together from the pre-rendered JSON fragments of
:mod:`eventdata_catalog` with one f-string per document, never ``json.dumps``; the catalog
escapes every string once, so every line is valid JSON.
"""

from __future__ import annotations

import calendar
import datetime
import random
import time
from collections.abc import Mapping
from typing import ClassVar, NotRequired, TypedDict

from esbench.corpus.generators.eventdata_catalog import catalog
from esbench.exceptions import TrackValidationError

_MILLIS = tuple(f"{i:03d}Z" for i in range(1000))
DEFAULT_START = "2017-07-03T00:00:00Z"
DEFAULT_DOCS_PER_SECOND = 5000.0
HEAD_SHARE = 0.002


def _parse_start(value: object) -> int:
    """Epoch milliseconds of an ISO-8601 UTC timestamp like ``2017-07-03T00:00:00Z``."""
    try:
        text = str(value).replace("Z", "+00:00")
        parsed = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise TrackValidationError(
            f"eventdata generator: 'start' must be an ISO-8601 timestamp like {DEFAULT_START}, got {value!r}."
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=datetime.UTC)
    return calendar.timegm(parsed.utctimetuple()) * 1000 + parsed.microsecond // 1000


class EventDataParams(TypedDict):
    """The normalized ``generator-params`` of :class:`EventDataGenerator` (defaults filled in)."""

    seed: int
    start: str
    docs_per_second: float
    doc_count: NotRequired[int]


class EventDataGenerator:
    """The ``eventdata`` corpus generator (registered as ``"eventdata"``).

    Params (``generator-params`` of the corpus):
        doc_count: documents of the full corpus (informational; the file gets the track's
            ``document-count``).
        seed: integer seed (default 1); same seed -> byte-identical corpus.
        start: timestamp of the first window (default ``2017-07-03T00:00:00Z``).
        docs_per_second: average event rate, which sets the time span (default 5,000/s: about
            5 documents per millisecond, 200 s for 1M documents).
    """

    name: ClassVar[str] = "eventdata"
    version: ClassVar[str] = "1"
    chunk_size: ClassVar[int] = 50_000

    def normalize_params(self, params: Mapping[str, object]) -> EventDataParams:
        """Validate ``params`` and fill defaults.

        Raises:
            TrackValidationError: unknown keys, non-integer seed, bad counts, rate or start.
        """
        allowed = {"doc_count", "seed", "start", "docs_per_second"}
        unknown = set(params) - allowed
        if unknown:
            raise TrackValidationError(
                f"eventdata generator: unknown generator-params {sorted(unknown)}; "
                f"allowed are {sorted(allowed)}."
            )
        seed = params.get("seed", 1)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TrackValidationError(f"eventdata generator: 'seed' must be an integer, got {seed!r}.")
        doc_count = params.get("doc_count")
        if doc_count is not None and (
            isinstance(doc_count, bool) or not isinstance(doc_count, int) or doc_count < 0
        ):
            raise TrackValidationError(
                f"eventdata generator: 'doc_count' must be a non-negative integer, got {doc_count!r}."
            )
        rate = params.get("docs_per_second", DEFAULT_DOCS_PER_SECOND)
        if isinstance(rate, bool) or not isinstance(rate, int | float) or rate <= 0:
            raise TrackValidationError(
                f"eventdata generator: 'docs_per_second' must be positive, got {rate!r}."
            )
        start = str(params.get("start", DEFAULT_START))
        _parse_start(start)
        out: EventDataParams = {"seed": seed, "start": start, "docs_per_second": float(rate)}
        if doc_count is not None:
            out["doc_count"] = doc_count
        return out

    def time_range_ms(self, params: Mapping[str, object], doc_count: int) -> tuple[int, int]:
        """``(first, last)`` @timestamp in epoch ms (both inclusive) of a corpus of ``doc_count`` documents.

        Exact: it draws the same timestamps as :meth:`render_chunk` (for the first and the last
        chunk only). Search param sources use it to aim time ranges at the data.
        """
        p = self.normalize_params(params)
        if doc_count <= 0:
            start = _parse_start(p["start"])
            return start, start
        last_chunk = (doc_count - 1) // self.chunk_size
        first = self._stamps(p, 0, 1)[0]
        last = self._stamps(p, last_chunk, doc_count - last_chunk * self.chunk_size)[-1]
        return first, last

    def _stamps(self, p: EventDataParams, chunk_index: int, count: int) -> list[int]:
        """The first ``count`` timestamps (epoch ms) of chunk ``chunk_index``."""
        size = self.chunk_size
        window_ms = size * 1000.0 / p["docs_per_second"]
        base = _parse_start(p["start"]) + chunk_index * window_ms
        rng_ts = random.Random(f"esbench-eventdata:{self.version}:{p['seed']}:{chunk_index}:ts")
        draws = sorted([rng_ts.random() for _ in range(size)])
        return [int(base + u * window_ms) for u in draws[:count]]

    def render_chunk(self, params: Mapping[str, object], chunk_index: int, count: int) -> bytes:
        """The first ``count`` documents (``<= chunk_size``) of chunk ``chunk_index`` as NDJSON bytes."""
        if not 0 <= count <= self.chunk_size:
            raise ValueError(f"count must be in [0, {self.chunk_size}], got {count}")
        p = self.normalize_params(params)
        cat = catalog()
        prefix = f"esbench-eventdata:{self.version}:{p['seed']}:{chunk_index}:"
        stamps = self._stamps(p, chunk_index, count)
        agents = random.Random(prefix + "agent").choices(cat.agents, cum_weights=cat.agent_cw, k=count)
        ips = random.Random(prefix + "ip").choices(cat.ips, cum_weights=cat.ip_cw, k=count)
        requests = random.Random(prefix + "request").choices(
            cat.requests, cum_weights=cat.request_cw, k=count
        )
        referrers = random.Random(prefix + "referrer").choices(
            cat.referrers, cum_weights=cat.referrer_cw, k=count
        )
        rng = random.Random(prefix + "event")
        rand = rng.random
        bits = rng.getrandbits

        out: list[str] = []
        append = out.append
        last_sec = -1
        sec_text = ""
        for i in range(count):
            fragment, quoted_agent = agents[i]
            ip, rare, geo = ips[i]
            if rare:
                x = bits(16)
                ip = f"{ip}{x >> 8}.{x & 255}"
            req = requests[i]
            u = rand()
            for outcome in req.outcomes:
                if u < outcome[0]:
                    break
            response = outcome[1]
            size_text = outcome[2]
            if size_text is None:
                if response == "206":
                    size_text = str(int(req.size * (u - 0.05) * 10))
                else:
                    size_text = str(int(req.size * (0.85 + 0.3 * u)))
            if rand() < HEAD_SHARE:
                verb = "HEAD"
                size_text = "0"
            else:
                verb = "GET"
            ms = stamps[i]
            sec = ms // 1000
            if sec != last_sec:
                last_sec = sec
                sec_text = time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(sec))
            ts = sec_text + _MILLIS[ms - sec * 1000]
            ref = referrers[i]
            path = req.path
            append(
                f'{{{fragment}{geo}"clientip": "{ip}", "referrer": "{ref}", "request": "{path}", '
                f'"bytes": {size_text}, "verb": "{verb}", "response": {response}, "httpversion": "1.1", '
                f'"@timestamp": "{ts}", "message": "{ip} - - [{ts}] \\"{verb} {path} HTTP/1.1\\" {response} '
                f'{size_text} \\"-\\" {ref} {quoted_agent}"}}\n'
            )
        return "".join(out).encode("ascii")


#: The registered instance.
GENERATOR = EventDataGenerator()
