"""Request paths and referrers for the eventdata generator (the access log of a software vendor's site).

The original corpus logs requests to one site (elastic.co): a heavy head of favicons and a long
tail of documentation pages, blog posts, downloads and static assets. The builders here make such
paths from word lists, each with a resource class that decides responses and sizes; the catalog
module ranks and weights them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

_WORDS = (
    "search", "index", "query", "cluster", "node", "shard", "replica", "mapping", "analyzer", "token",
    "filter", "aggregation", "bucket", "metric", "pipeline", "ingest", "snapshot", "restore", "security",
    "role", "user", "alerting", "watcher", "monitoring", "machine", "learning", "anomaly", "detection",
    "geo", "point", "shape", "date", "histogram", "range", "terms", "match", "phrase", "bool", "nested",
    "parent", "child", "join", "scroll", "bulk", "reindex", "update", "delete", "template", "alias",
    "settings", "allocation", "recovery", "translog", "refresh", "flush", "merge", "segment", "cache",
    "circuit", "breaker", "thread", "pool", "heap", "memory", "disk", "watermark", "upgrade", "rolling",
    "restart", "install", "configure", "docker", "kubernetes", "cloud", "logs", "metrics", "apm", "beats",
    "filebeat", "metricbeat", "packetbeat", "heartbeat", "logstash", "kibana", "dashboard", "visualize",
    "timelion", "canvas", "graph", "sql", "painless", "script", "scoring", "relevance", "highlighting",
    "suggesters", "completion", "percolator", "fuzzy", "wildcard", "regexp", "prefix", "exists", "ids",
    "sort", "pagination", "profile", "explain", "validate", "stats", "health", "cat", "tasks", "api",
    "java", "python", "javascript", "ruby", "go", "net", "php", "perl", "client", "rest", "transport",
    "performance", "tuning", "scaling", "capacity", "planning", "best", "practices", "introducing",
    "announcing", "released", "whats", "new", "getting", "started", "guide", "tutorial", "deep", "dive",
    "building", "using", "with", "for", "and", "at", "scale", "real", "time", "analytics", "observability",
    "siem", "endpoint", "threat", "hunting", "log", "management", "ecommerce", "site", "app", "enterprise",
    "workplace", "swiftype", "elastic", "stack", "x", "pack", "gold", "platinum", "license", "trial",
)  # fmt: skip
_PRODUCTS = (
    "elasticsearch",
    "kibana",
    "logstash",
    "beats",
    "apm",
    "x-pack",
    "es-hadoop",
    "cloud",
    "swiftype",
)
_PRODUCT_WEIGHTS = (40, 20, 14, 10, 3, 6, 2, 4, 1)
_BOOKS = {
    "elasticsearch": ("reference", "client/java-api", "client/java-rest", "guide", "plugins", "painless",
                      "client/net-api", "client/javascript-api", "client/python-api"),
    "kibana": ("reference",), "logstash": ("reference",), "beats": ("filebeat", "metricbeat", "libbeat",
    "packetbeat", "heartbeat", "winlogbeat", "auditbeat"), "apm": ("server", "agent/nodejs", "agent/python",
    "get-started"), "x-pack": ("reference",), "es-hadoop": ("reference",), "cloud": ("reference",),
    "swiftype": ("site-search",),
}  # fmt: skip
_VERSIONS = ("current", "5.5", "5.4", "master", "2.4", "5.x", "5.3", "1.7", "5.0", "6.0", "2.3", "5.2", "5.1")
_VERSION_WEIGHTS = (45, 10, 6, 5, 8, 3, 3, 4, 2, 4, 2, 2, 2)
_RELEASES = ("5.5.0", "5.4.3", "5.4.1", "5.4.0", "5.3.2", "5.3.0", "5.2.2", "5.1.2", "5.0.2", "2.4.5",
             "2.4.4",
             "2.3.5", "1.7.6", "1.7.5", "6.0.0-alpha2", "6.0.0-beta1", "5.5.1")  # fmt: skip
_LANGS = ("", "/de", "/fr", "/jp", "/cn", "/kr", "/es", "/pt")
_LANG_WEIGHTS = (70, 5, 5, 6, 8, 2, 2, 2)
_SITE_PAGES = (
    "/", "/products", "/products/elasticsearch", "/products/kibana", "/products/logstash", "/products/beats",
    "/products/x-pack", "/products/x-pack/security", "/products/x-pack/monitoring",
    "/products/x-pack/alerting",
    "/cloud", "/cloud/as-a-service", "/cloud/enterprise", "/subscriptions", "/support", "/support/matrix",
    "/about", "/about/leadership", "/about/careers", "/about/press", "/contact", "/training", "/services",
    "/consulting", "/community", "/community/meetups", "/community/contributors", "/customers", "/use-cases",
    "/webinars", "/videos", "/learn", "/downloads", "/start", "/elasticon", "/elasticon/conf/2017/sf",
    "/elasticon/tour/2017", "/solutions/logging", "/solutions/metrics", "/solutions/security-analytics",
    "/solutions/app-search", "/partners", "/blog", "/guide", "/legal", "/legal/privacy-statement",
)  # fmt: skip
_IMAGE_DIRS = ("svg", "png", "logos", "icons", "customers", "blog", "team", "products", "elasticon", "hero")
_IMAGE_EXTS = ("png", "svg", "jpg", "gif")


@dataclass(frozen=True, slots=True, kw_only=True)
class PathSpec:
    """A request path with its resource class (``icon``, ``static``, ``page``, ``download``,
    ``redirect`` or ``missing``) and the size of a full 200 response in bytes."""

    path: str
    kind: str
    size: int


def _slug(rng: random.Random, lo: int, hi: int) -> str:
    return "-".join(rng.choice(_WORDS) for _ in range(rng.randint(lo, hi + 1)))


def _weighted(rng: random.Random, items: Sequence[object], weights: Sequence[float]) -> str:
    return str(rng.choices(items, weights=weights, k=1)[0])


def _lognormal_size(
    rng: random.Random, median: float, sigma: float, lo: int = 43, hi: int = 30_000_000
) -> int:
    return max(lo, min(hi, int(rng.lognormvariate(0.0, sigma) * median)))


def _utm(rng: random.Random) -> str:
    """A marketing query string, the long tail of request and referrer lengths."""
    return (
        f"?utm_source={rng.choice(('twitter', 'linkedin', 'newsletter', 'facebook', 'google', 'meetup'))}"
        f"&utm_medium={rng.choice(('social', 'email', 'cpc', 'display', 'referral'))}"
        f"&utm_campaign={_slug(rng, 2, 5)}&utm_content={_slug(rng, 1, 3)}"
    )


def google_redirect(rng: random.Random, target: str) -> str:
    """A Google click-through URL wrapping ``target`` (long referrers)."""
    quoted = (
        target.replace(":", "%3A")
        .replace("/", "%2F")
        .replace("?", "%3F")
        .replace("=", "%3D")
        .replace("&", "%26")
    )
    ved = "".join(
        rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") for _ in range(40)
    )
    usg = "".join(
        rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") for _ in range(34)
    )
    return (
        f"https://www.google.com/url?sa=t&rct=j&q=&esrc=s&source=web&cd={rng.randint(1, 12)}&cad=rja&uact=8"
        f"&ved={ved}&url={quoted}&usg={usg}"
    )


def guide_page(rng: random.Random) -> str:
    """A documentation page path (also the most common referrer on the site)."""
    product = _weighted(rng, _PRODUCTS, _PRODUCT_WEIGHTS)
    book = rng.choice(_BOOKS[product])
    version = _weighted(rng, _VERSIONS, _VERSION_WEIGHTS)
    return f"/guide/en/{product}/{book}/{version}/{_slug(rng, 1, 4)}.html"


def site_page(rng: random.Random) -> str:
    """A marketing, blog or event page path."""
    kind = rng.choices(("site", "blog", "webinar", "elasticon", "search"), (25, 45, 10, 10, 10))[0]
    lang = _weighted(rng, _LANGS, _LANG_WEIGHTS)
    if kind == "site":
        return lang + rng.choice(_SITE_PAGES)
    if kind == "blog":
        return f"{lang}/blog/{_slug(rng, 2, 6)}"
    if kind == "webinar":
        return f"{lang}/webinars/{_slug(rng, 2, 5)}"
    if kind == "elasticon":
        return f"/elasticon/conf/2017/sf/{_slug(rng, 2, 5)}"
    return f"/search?q={'+'.join(rng.choice(_WORDS) for _ in range(rng.randint(1, 3)))}"


def make_path(rng: random.Random) -> PathSpec:
    """A random tail path: its class decides its responses; its size is drawn per class."""
    kind = rng.choices(
        ("guide", "page", "static", "asset", "download", "redirect", "missing", "icon"),
        (38, 22, 22, 12, 4, 2.4, 2.0, 2),
    )[0]
    if kind == "guide":
        path = guide_page(rng)
        if rng.random() < 0.04:
            path += _utm(rng)
        return PathSpec(path=path, kind="page", size=_lognormal_size(rng, 6_000, 0.7))
    if kind == "page":
        return PathSpec(path=site_page(rng), kind="page", size=_lognormal_size(rng, 5_000, 0.8))
    if kind == "static":
        sub = rng.choices(("css", "js", "images", "fonts"), (2, 3, 6, 1))[0]
        if sub == "css":
            path, size = f"/static/css/{_slug(rng, 1, 2)}.css", _lognormal_size(rng, 12_000, 1.0)
        elif sub == "js":
            h = f"{rng.getrandbits(32):08x}"
            path, size = f"/static/js/{_slug(rng, 1, 2)}.{h}.js", _lognormal_size(rng, 15_000, 1.2)
        elif sub == "fonts":
            name = rng.choice(("MetricWeb-Regular", "MetricWeb-Semibold", "MetricWeb-Bold", "inter-ui"))
            ext = rng.choice(("woff2", "woff", "ttf"))
            path, size = f"/static/fonts/{name}.{ext}", _lognormal_size(rng, 30_000, 0.3)
        else:
            ext = _weighted(rng, _IMAGE_EXTS, (5, 6, 3, 1))
            path = f"/static/images/{rng.choice(_IMAGE_DIRS)}/{_slug(rng, 1, 3)}.{ext}"
            size = _lognormal_size(rng, 1_400 if ext in ("svg", "gif") else 6_000, 1.1)
        return PathSpec(path=path, kind="static", size=size)
    if kind == "asset":
        blt = f"blt{rng.getrandbits(64):016x}"
        ext = _weighted(rng, ("png", "jpg", "svg", "pdf", "mp4"), (8, 5, 3, 1, 0.3))
        median = {"png": 25_000, "jpg": 60_000, "svg": 3_000, "pdf": 600_000, "mp4": 4_000_000}[ext]
        path = f"/assets/{blt}/{_slug(rng, 1, 3)}.{ext}"
        return PathSpec(path=path, kind="download" if ext in ("pdf", "mp4") else "static",
                        size=_lognormal_size(rng, median, 0.9))  # fmt: skip
    if kind == "download":
        product = _weighted(rng, _PRODUCTS[:4], _PRODUCT_WEIGHTS[:4])
        if rng.random() < 0.6:
            return PathSpec(path=f"/downloads/{product}", kind="page", size=_lognormal_size(rng, 8_000, 0.3))
        release = rng.choice(_RELEASES)
        return PathSpec(
            path=f"/downloads/past-releases/{product}-{release.replace('.', '-')}",
            kind="page",
            size=_lognormal_size(rng, 6_500, 0.3),
        )
    if kind == "redirect":
        if rng.random() < 0.5:
            product = _weighted(rng, _PRODUCTS, _PRODUCT_WEIGHTS)
            book = rng.choice(_BOOKS[product])
            path = f"/guide/en/{product}/{book}/{_weighted(rng, _VERSIONS, _VERSION_WEIGHTS)}"
        else:
            path = rng.choice(_SITE_PAGES[1:]) + "/"
        return PathSpec(path=path, kind="redirect", size=rng.randint(178, 260))
    if kind == "missing":
        plugin, script, image = _slug(rng, 1, 2), _slug(rng, 1, 2), _slug(rng, 1, 2)
        version, page = _weighted(rng, _VERSIONS, _VERSION_WEIGHTS), _slug(rng, 1, 3)
        path = rng.choice(
            (
                f"/wp-content/plugins/{plugin}/readme.txt",
                f"/{script}.php",
                f"/static/images/{image}.png",
                f"/guide/en/elasticsearch/reference/{version}/{page}",
                "/wp-login.php",
                "/.well-known/assetlinks.json",
                "/apple-app-site-association",
            )
        )
        return PathSpec(path=path, kind="missing", size=_lognormal_size(rng, 9_500, 0.2))
    size = rng.choice((57, 76, 120, 144, 152, 180))
    return PathSpec(
        path=f"/apple-touch-icon-{size}x{size}{'-precomposed' if rng.random() < 0.4 else ''}.png",
        kind="icon",
        size=_lognormal_size(rng, 2_100, 0.4),
    )


#: The head of the request distribution: path, class, size of a 200 response, percent of events.
HEAD_PATHS: tuple[tuple[str, str, int, float], ...] = (
    ("/favicon.ico", "icon", 1_150, 10.0),
    ("/apple-touch-icon.png", "icon", 1_934, 9.0),
    ("/apple-touch-icon-precomposed.png", "icon", 1_934, 9.0),
)

#: The most requested paths after the favicons: (tail rank, path, class, size of a 200 response).
TOP_PATHS: tuple[tuple[int, str, str, int], ...] = (
    (0, "/", "page", 2_158),
    (1, "/static/images/svg/elastic-logo-horizontal.svg", "static", 1_853),
    (2, "/guide/en/elasticsearch/reference/current/index.html", "page", 5_642),
    (3, "/static/css/main.8c7a2e4f.css", "static", 28_211),
    (4, "/downloads/elasticsearch", "page", 4_104),
    (5, "/static/images/svg/icon-search-magnifier.svg", "static", 742),
    (6, "/products/elasticsearch", "page", 6_581),
    (7, "/static/images/blank.gif", "static", 43),
    (8, "/guide/en/kibana/current/index.html", "page", 4_911),
    (9, "/blog", "page", 9_035),
    (10, "/static/fonts/MetricWeb-Regular.8d1cf6a9.woff2", "static", 27_436),
    (11, "/guide", "redirect", 185),
    (12, "/downloads/kibana", "page", 3_890),
    (13, "/static/images/svg/arrow-right.svg", "static", 311),
    (14, "/guide/en/elasticsearch/reference/current/getting-started.html", "page", 7_276),
    (15, "/products/kibana", "page", 6_133),
    (16, "/static/images/svg/social-twitter.svg", "static", 594),
    (17, "/static/images/svg/social-github.svg", "static", 627),
    (18, "/downloads", "page", 5_552),
    (19, "/static/js/main.3f9d2c11.bundle.js", "static", 98_404),
    (20, "/guide/en/elasticsearch/reference/current", "redirect", 185),
    (21, "/guide/en/logstash/current/index.html", "page", 4_488),
    (22, "/static/images/png/homepage-hero-background.png", "static", 64_117),
    (23, "/products/logstash", "page", 5_829),
    (24, "/static/js/vendor.a41be7d0.bundle.js", "static", 109_780),
    (25, "/guide/en/elasticsearch/reference/current/docs-index_.html", "page", 11_902),
    (26, "/subscriptions", "page", 8_804),
    (34, "/assets/blt7c9d0b1c2a3e4f56/elastic-stack-overview.pdf", "download", 846_211),
    (45, "/static/videos/elasticsearch-intro.mp4", "download", 4_612_977),
)

#: Referrers that are not pages of the site itself: URL template and weight.
EXTERNAL_REFERRERS: tuple[tuple[str, float], ...] = (
    ("https://www.google.com/", 30),
    ("https://www.google.co.in/", 5),
    ("https://www.google.de/", 4),
    ("https://www.google.fr/", 4),
    ("https://www.google.co.uk/", 3),
    ("https://www.google.com.hk/", 1),
    ("https://www.google.co.jp/", 2),
    ("https://www.google.ca/", 1.5),
    ("https://www.google.es/", 1),
    ("https://www.google.com.br/", 1),
    ("https://www.bing.com/", 3),
    ("https://duckduckgo.com/", 1.5),
    ("https://www.baidu.com/link?url={hex}", 2),
    ("https://search.yahoo.com/", 0.5),
    ("https://discuss.elastic.co/t/{slug}/{num}", 6),
    ("https://stackoverflow.com/questions/{num}/{slug}", 4),
    ("https://github.com/elastic/elasticsearch/issues/{num}", 2),
    ("https://github.com/elastic/{product}", 1),
    ("https://www.youtube.com/", 0.5),
    ("https://t.co/{short}", 1),
    ("https://www.linkedin.com/", 0.5),
    ("https://news.ycombinator.com/", 0.3),
    ("https://www.reddit.com/r/elasticsearch/", 0.3),
)


def external_referrer(template: str, rng: random.Random) -> str:
    """Fill an :data:`EXTERNAL_REFERRERS` template with random but plausible values."""
    return template.format(
        hex=f"{rng.getrandbits(120):030x}",
        slug=_slug(rng, 2, 6),
        num=rng.randint(10_000, 46_000_000 if "stackoverflow" in template else 99_999),
        product=rng.choice(_PRODUCTS[:4]),
        short=f"{rng.getrandbits(48):012x}",
    )
