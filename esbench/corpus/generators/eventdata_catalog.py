"""The fixed catalogs the eventdata generator samples from, as ready-made JSON fragments.

Built once per process from a constant seed (so they never depend on the corpus ``seed``) in
about half a second; the generator then only picks entries and pastes fragments together.

Distribution shapes (fitted to the statistics of the original corpus, see ``docs/corpora.md``):

* agents: 8,000 strings ranked by Zipf weights ``(r + 20) ** -1.7`` (top 10 ~ 25 %, top 100 ~ 72 %,
  ~5k distinct per 200k events); ranks go to (family, OS) pairs by largest deficit against their
  target shares (:mod:`eventdata_agents`).
* client IPs: 73 % from 60,000 ``a.b.c.0`` networks with weights ``(r + 10) ** -0.8`` (~42k
  distinct per 146k events), 27 % from 16,000 rarer ``a.b`` prefixes plus two random octets.
  Each network/prefix belongs to one city (and so one country); countries get their target
  shares through a low-discrepancy (golden ratio) assignment; ~5 % of the traffic resolves to
  the country's point instead of the city's.
* requests: three favicon paths with 10 %, 9 %, 9 %, then 10,000 paths with weights
  ``(r + 3) ** -1.3`` (~7k distinct per 200k events); each path's class fixes its responses.
* referrers: 27 % ``"-"``, then pages of the site (Zipf) and external sites.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import random
from dataclasses import dataclass
from pathlib import Path

from esbench.corpus.generators.eventdata_agents import agent_specs
from esbench.corpus.generators.eventdata_paths import (
    EXTERNAL_REFERRERS,
    HEAD_PATHS,
    TOP_PATHS,
    PathSpec,
    external_referrer,
    google_redirect,
    guide_page,
    make_path,
    site_page,
)

_GEO_FILE = Path(__file__).with_name("data") / "eventdata_geo.json"
_GOLDEN = 0.6180339887498949

AGENTS = 8_000
NETWORKS = 60_000
RARE_PREFIXES = 16_000
PATHS = 10_000
SITE_REFERRERS = 5_000
NETWORK_SHARE = 0.73
REFERRER_DASH_SHARE = 0.27
COUNTRY_POINT_SHARE = 0.05

# (threshold on u in [0, 1), response) per resource class; the last entry is the 200 (or only) one.
_OUTCOMES: dict[str, tuple[tuple[float, int], ...]] = {
    "icon": ((0.55, 304), (1.0, 200)),
    "static": ((0.22, 304), (1.0, 200)),
    "page": ((0.010, 304), (0.015, 301), (0.027, 404), (0.028, 302), (0.0285, 500), (1.0, 200)),
    "download": ((0.05, 304), (0.15, 206), (1.0, 200)),
    "redirect": ((1.0, 301),),
    "missing": ((1.0, 404),),
}
_FIXED_BYTES = {301: 185, 302: 236, 500: 588}

#: One outcome: (upper threshold of u, response as text, bytes as text or None = sized per event).
Outcome = tuple[float, str, str | None]


@dataclass(frozen=True, slots=True)
class Request:
    """A request path: its JSON-escaped text, outcomes, and full size for per-event sizing."""

    path: str
    outcomes: tuple[Outcome, ...]
    size: int
    kind: str


@dataclass(frozen=True, slots=True)
class Catalog:
    """Ready-to-paste fragments with cumulative weights for ``random.choices``.

    Attributes:
        agents: ``(fragment, quoted_agent)``: ``fragment`` is ``"agent": ..., "useragent": {...}, ``
            and ``quoted_agent`` the JSON-escaped ``"agent"`` text for the message.
        ips: ``(ip_or_prefix, rare, geoip_fragment)``; ``rare`` entries are ``a.b.`` prefixes.
        requests / referrers: entries as described; referrers are JSON-escaped quoted URLs.
        *_cw: cumulative weights aligned with the entries.
        agent_meta / ip_country: plain values for tests and statistics.
    """

    agents: tuple[tuple[str, str], ...]
    agent_cw: tuple[float, ...]
    agent_meta: tuple[tuple[str, str, str, str], ...]
    ips: tuple[tuple[str, bool, str], ...]
    ip_cw: tuple[float, ...]
    ip_country: tuple[str, ...]
    requests: tuple[Request, ...]
    request_cw: tuple[float, ...]
    referrers: tuple[str, ...]
    referrer_cw: tuple[float, ...]


def _esc(text: str) -> str:
    """JSON string body (without the surrounding quotes) of ``text``."""
    return json.dumps(text, ensure_ascii=True)[1:-1]


def _zipf(n: int, q: float, s: float) -> list[float]:
    return [(r + q) ** -s for r in range(1, n + 1)]


def _build_agents(
    rng: random.Random,
) -> tuple[list[tuple[str, str]], list[float], list[tuple[str, str, str, str]]]:
    specs = agent_specs()
    total_share = sum(s.share for s in specs)
    targets = [s.share / total_share for s in specs]
    weights = _zipf(AGENTS, 20, 1.7)
    total_weight = sum(weights)
    assigned = [0.0] * len(specs)
    seen: set[str] = set()
    exhausted = [False] * len(specs)
    entries: list[tuple[str, str]] = []
    entry_weights: list[float] = []
    meta: list[tuple[str, str, str, str]] = []
    done = 0.0
    for w in weights:
        share = w / total_weight
        while True:
            # Largest deficit after this rank: the pair furthest below its share gets the rank.
            k = max(
                (i for i in range(len(specs)) if not exhausted[i]),
                key=lambda i: targets[i] * (done + share) - assigned[i],
            )
            for _ in range(60):
                agent, os_value = specs[k].build(rng)
                if agent not in seen:
                    break
            else:
                exhausted[k] = True
                continue
            break
        seen.add(agent)
        assigned[k] += share
        done += share
        spec = specs[k]
        quoted = _esc(f'"{agent}"')
        fragment = (
            f'"agent": "{quoted}", "useragent": {{"os": "{_esc(os_value)}", '
            f'"os_name": "{_esc(spec.os_name)}", '
            f'"name": "{_esc(spec.name)}"}}, '
        )
        entries.append((fragment, quoted))
        entry_weights.append(w)
        meta.append((agent, spec.name, os_value, spec.os_name))
    return entries, entry_weights, meta


def _golden_pick(cum_targets: list[float], r: int) -> int:
    return bisect.bisect_right(cum_targets, (r * _GOLDEN) % 1.0 * cum_targets[-1])


def _build_ips(rng: random.Random) -> tuple[list[tuple[str, bool, str]], list[float], list[str]]:
    geo = json.loads(_GEO_FILE.read_text(encoding="utf-8"))
    countries = geo["countries"]
    cities_by_country: dict[str, list[tuple[float, float]]] = {}
    for code, _name, lon, lat in geo["cities"]:
        cities_by_country.setdefault(code, []).append((lon, lat))
    codes = [c[0] for c in countries]
    cum_targets = list(itertools.accumulate(c[2] for c in countries))
    # Some cities dominate their country's traffic: heavy-tailed fixed city weights.
    city_cw = {
        code: list(itertools.accumulate(rng.paretovariate(1.2) for _ in cities))
        for code, cities in cities_by_country.items()
    }

    @functools.cache
    def fragment(ci: int, point: tuple[float, float]) -> str:
        country = countries[ci]
        return (
            f'"geoip": {{"country_name": "{_esc(str(country[1]))}", "location": [{point[0]!r}, '
            f"{point[1]!r}]}}, "
        )

    used16: set[tuple[int, int]] = set()
    firsts = [a for a in range(1, 224) if a not in (10, 127, 169, 172, 192)]

    def fresh16() -> tuple[int, int]:
        while True:
            pair = (rng.choice(firsts), rng.randrange(256))
            if pair not in used16:
                used16.add(pair)
                return pair

    entries: list[tuple[str, bool, str]] = []
    weights: list[float] = []
    country_of: list[str] = []
    # City -> its current /16 block and the /24s used in it.
    blocks: dict[tuple[str, int], tuple[tuple[int, int], set[int]]] = {}
    net_weights = _zipf(NETWORKS, 10, 0.8)
    net_total = sum(net_weights)
    point_weight = 0.0
    done = 0.0
    for r, w in enumerate(net_weights):
        ci = _golden_pick(cum_targets, r)
        code = codes[ci]
        cw = city_cw[code]
        city = bisect.bisect_right(cw, rng.random() * cw[-1], 0, len(cw) - 1)
        block, used = blocks.get((code, city), ((0, 0), set()))
        if not used or len(used) >= 64:
            block, used = fresh16(), set()
            blocks[(code, city)] = (block, used)
        c = rng.randrange(256)
        while c in used:
            c = rng.randrange(256)
        used.add(c)
        share = w / net_total
        # Spread country-only answers over the ranks so they hold ~5 % of the traffic.
        use_point = point_weight < COUNTRY_POINT_SHARE * (done + share) - share / 2
        point = (countries[ci][3], countries[ci][4]) if use_point else cities_by_country[code][city]
        point_weight += share if use_point else 0.0
        done += share
        entries.append((f"{block[0]}.{block[1]}.{c}.0", False, fragment(ci, point)))
        weights.append(NETWORK_SHARE * share)
        country_of.append(code)
    rare_weights = _zipf(RARE_PREFIXES, 100, 0.5)
    rare_total = sum(rare_weights)
    for r, w in enumerate(rare_weights):
        ci = _golden_pick(cum_targets, r + 7919)
        code = codes[ci]
        cw = city_cw[code]
        city = bisect.bisect_right(cw, rng.random() * cw[-1], 0, len(cw) - 1)
        rare_point = (countries[ci][3], countries[ci][4]) if rng.random() < COUNTRY_POINT_SHARE else None
        a, b = fresh16()
        entries.append((f"{a}.{b}.", True, fragment(ci, rare_point or cities_by_country[code][city])))
        weights.append((1.0 - NETWORK_SHARE) * w / rare_total)
        country_of.append(code)
    return entries, weights, country_of


def _outcomes(kind: str, size: int) -> tuple[Outcome, ...]:
    out: list[Outcome] = []
    for threshold, response in _OUTCOMES[kind]:
        if response == 304:
            text: str | None = "0"
        elif response == 200 and kind == "page":
            text = None
        elif response in (200, 404) or kind in ("redirect",):
            text = str(size)
        elif response == 206:
            text = None
        else:
            text = str(_FIXED_BYTES[response])
        out.append((threshold, str(response), text))
    return tuple(out)


def _build_requests(rng: random.Random) -> tuple[list[Request], list[float]]:
    requests: list[Request] = []
    weights: list[float] = []
    head_share = sum(h[3] for h in HEAD_PATHS) / 100.0
    for path, kind, size, share in HEAD_PATHS:
        requests.append(Request(path=_esc(path), outcomes=_outcomes(kind, size), size=size, kind=kind))
        weights.append(share / 100.0)
    tail = _zipf(PATHS, 3, 1.3)
    tail_total = sum(tail)
    seen = {h[0] for h in HEAD_PATHS}
    top = {rank: (path, kind, size) for rank, path, kind, size in TOP_PATHS}
    for r, w in enumerate(tail):
        if r in top:
            path, kind, size = top[r]
            spec: PathSpec = PathSpec(path=path, kind=kind, size=size)
            seen.add(path)
            requests.append(Request(path=_esc(path), outcomes=_outcomes(kind, size), size=size, kind=kind))
            weights.append((1.0 - head_share) * w / tail_total)
            continue
        while True:
            spec = make_path(rng)
            # The most requested pages are real pages or assets, never errors or redirects.
            if r < 200 and spec.kind not in ("page", "static"):
                continue
            if spec.path not in seen:
                break
        seen.add(spec.path)
        requests.append(
            Request(
                path=_esc(spec.path), outcomes=_outcomes(spec.kind, spec.size), size=spec.size, kind=spec.kind
            )
        )
        weights.append((1.0 - head_share) * w / tail_total)
    return requests, weights


def _build_referrers(rng: random.Random) -> tuple[list[str], list[float]]:
    referrers = [_esc('"-"')]
    weights = [REFERRER_DASH_SHARE]
    site = _zipf(SITE_REFERRERS, 5, 1.1)
    site_total = sum(site)
    site_share = (1.0 - REFERRER_DASH_SHARE) * 0.85
    seen: set[str] = set()
    for w in site:
        while True:
            path = guide_page(rng) if rng.random() < 0.78 else site_page(rng)
            if path not in seen:
                break
        seen.add(path)
        url = f"https://www.elastic.co{path}"
        if rng.random() < 0.02:
            url = google_redirect(rng, url)
        referrers.append(_esc(f'"{url}"'))
        weights.append(site_share * w / site_total)
    external_total = sum(w for _, w in EXTERNAL_REFERRERS)
    external_share = 1.0 - REFERRER_DASH_SHARE - site_share
    for template, w in EXTERNAL_REFERRERS:
        variants = 1 if "{" not in template else 40
        for _ in range(variants):
            referrers.append(_esc(f'"{external_referrer(template, rng)}"'))
            weights.append(external_share * w / external_total / variants)
    return referrers, weights


@functools.cache
def catalog() -> Catalog:
    """The catalog (built on first use, then cached for the life of the process)."""
    rng = random.Random("esbench-eventdata-catalog-1")
    agents, agent_w, agent_meta = _build_agents(rng)
    ips, ip_w, ip_country = _build_ips(rng)
    requests, request_w = _build_requests(rng)
    referrers, referrer_w = _build_referrers(rng)
    return Catalog(
        agents=tuple(agents),
        agent_cw=tuple(itertools.accumulate(agent_w)),
        agent_meta=tuple(agent_meta),
        ips=tuple(ips),
        ip_cw=tuple(itertools.accumulate(ip_w)),
        ip_country=tuple(ip_country),
        requests=tuple(requests),
        request_cw=tuple(itertools.accumulate(request_w)),
        referrers=tuple(referrers),
        referrer_cw=tuple(itertools.accumulate(referrer_w)),
    )
