"""User agents for the eventdata generator: strings consistent with browser family and OS.

Each (browser family, OS family) pair has a target share of events, chosen so that the marginals
approach the original corpus (``useragent.name``: Chrome 55 %, Firefox 27 %, Other 4 %,
Safari 3 %, IE 2 %; ``useragent.os_name``: Mac OS X 31 %, Windows 7 26 %, Linux 11 %, Windows 10
9 %, Other 7 %, Ubuntu 6 %), and a builder that makes the pair's ``j``-th most popular agent
string together with its ``useragent.os`` value. Strings follow the real formats of 2016-2017
browsers (version numbers from their release histories); nothing is drawn from Faker, so the
catalog cannot change under a dependency upgrade.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

# (major, build) of Chrome releases, newest first, with relative popularity in mid 2017.
_CHROME = (
    (60, 3112, 3), (59, 3071, 30), (58, 3029, 22), (57, 2987, 10), (56, 2924, 6), (55, 2883, 5),
    (54, 2840, 3), (53, 2785, 3), (52, 2743, 2), (51, 2704, 2), (50, 2661, 2), (49, 2623, 4),
    (48, 2564, 1), (47, 2526, 1), (45, 2454, 1), (41, 2272, 1),
)  # fmt: skip
_CHROME_OLD = tuple(r for r in _CHROME if r[0] <= 49)
_CHROME_PATCHES = (
    115,
    109,
    104,
    86,
    125,
    96,
    110,
    133,
    81,
    98,
    87,
    116,
    112,
    100,
    75,
    76,
    90,
    71,
    74,
    59,
    24,
    22,
)
_FIREFOX = ((54, 30), (53, 18), (52, 16), (55, 4), (51, 5), (50, 4), (49, 3), (48, 3), (47, 3), (45, 4),
            (46, 2), (44, 2), (43, 1), (42, 1), (40, 1), (38, 1), (31, 1), (41, 1), (39, 1), (36, 1), (35, 1),
            (34, 1), (33, 1), (32, 1), (30, 0.5), (29, 0.5), (28, 0.5), (27, 0.5), (26, 0.5), (24, 0.5),
            (56, 1))  # fmt: skip
_MAC = ("10_12_5", "10_12_4", "10_12_6", "10_11_6", "10_12_3", "10_10_5", "10_12_1", "10_12_2", "10_11_5",
        "10_9_5", "10_11_4", "10_12_0", "10_11_3", "10_10_3", "10_11_2", "10_8_5", "10_13_0",
        "10_7_5")  # fmt: skip
_MAC_WEIGHTS = (20, 14, 6, 14, 7, 8, 4, 4, 3, 5, 3, 2, 3, 2, 2, 1, 1, 1)
_WIN = {
    "Windows 7": "Windows NT 6.1",
    "Windows 10": "Windows NT 10.0",
    "Windows 8.1": "Windows NT 6.3",
    "Windows 8": "Windows NT 6.2",
    "Windows XP": "Windows NT 5.1",
    "Windows Vista": "Windows NT 6.0",
}
_WIN_ARCH = ("; WOW64", "; Win64; x64", "")
_WIN_ARCH_WEIGHTS = (6, 3, 2)
_SAFARI = (("10.1.1", "603.2.4"), ("10.1", "603.1.30"), ("10.0.3", "602.4.8"), ("10.0.2", "602.3.12"),
           ("9.1.2", "601.7.7"), ("9.1.1", "601.6.17"), ("9.0.3", "601.4.4"), ("8.0.8", "600.8.9"),
           ("10.1.2", "603.3.8"), ("11.0", "604.1.38"))  # fmt: skip
_SAFARI_WEIGHTS = (20, 10, 8, 5, 6, 3, 3, 2, 4, 1)
_IOS = (("10_3_2", "14F89"), ("10_3_1", "14E304"), ("10_2_1", "14D27"), ("10_3_3", "14G60"),
        ("9_3_5", "13G36"), ("10_2", "14C92"), ("10_1_1", "14B100"), ("11_0", "15A372"), ("9_3_2", "13F69"),
        ("8_4_1", "12H321"))  # fmt: skip
_IOS_WEIGHTS = (20, 8, 6, 4, 5, 3, 2, 1, 2, 1)
_IOS_DEVICES = (("iPhone", "CPU iPhone OS"), ("iPad", "CPU OS"), ("iPod touch", "CPU iPhone OS"))
_IOS_DEVICE_WEIGHTS = (8, 3, 0.3)
_ANDROID_DEVICES = (
    ("SM-G930F", "7.0", "NRD90M"), ("SM-G935F", "7.0", "NRD90M"), ("SM-G950F", "7.0", "NRD90M"),
    ("SM-G920F", "7.0", "NRD90M"), ("SM-G900F", "6.0.1", "MMB29M"), ("SM-A520F", "6.0.1", "MMB29K"),
    ("SM-J510FN", "6.0.1", "MMB29M"), ("SM-N920C", "7.0", "NRD90M"), ("Nexus 5X", "7.1.2", "N2G47W"),
    ("Nexus 6P", "7.1.2", "N2G47Z"), ("Pixel", "7.1.2", "NJH47D"), ("Pixel XL", "7.1.2", "NJH47D"),
    ("Nexus 5", "6.0.1", "M4B30Z"), ("ONEPLUS A3003", "7.1.1", "NMF26F"),
    ("ONEPLUS A5000", "7.1.1", "NMF26X"),
    ("Moto G (4)", "7.0", "NPJ25.93-14"), ("Moto G (5) Plus", "7.0", "NPNS25.137-35-5"),
    ("Redmi Note 4", "6.0", "MRA58K"), ("Redmi 4X", "6.0.1", "MMB29M"), ("MI 5", "7.0", "NRD90M"),
    ("Lenovo K50a40", "6.0", "MRA58K"), ("HUAWEI VNS-L31", "7.0", "HUAWEIVNS-L31"),
    ("FRD-L09", "7.0", "HUAWEIFRD-L09"), ("LG-H850", "7.0", "NRD90U"), ("LG-H815", "6.0", "MRA58K"),
    ("D5803", "6.0.1", "23.5.A.1.291"), ("E5823", "7.0", "32.4.A.0.160"), ("ASUS_Z00AD", "5.0", "LRX21V"),
    ("SM-T813", "7.0", "NRD90M"), ("SM-T560", "4.4.4", "KTU84P"), ("GT-I9505", "5.0.1", "LRX22C"),
    ("HTC One M9", "7.0", "NRD90M"), ("SAMSUNG SM-G925F", "7.0", "NRD90M"), ("A0001", "6.0.1", "MHC19Q"),
    ("Nexus 7", "6.0.1", "MOB30X"), ("vivo 1601", "6.0", "MRA58K"), ("CPH1701", "6.0.1", "MMB29M"),
)  # fmt: skip
_BOTS = (
    ("Googlebot", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", 8),
    ("Googlebot", "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like "
     "Gecko) Chrome/41.0.2272.96 Mobile Safari/537.36 (compatible; Googlebot/2.1; "
     "+http://www.google.com/bot.html)", 3),
    ("Googlebot", "Googlebot-Image/1.0", 1),
    ("bingbot", "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", 6),
    ("YandexBot", "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)", 3),
    ("AhrefsBot", "Mozilla/5.0 (compatible; AhrefsBot/5.2; +http://ahrefs.com/robot/)", 3),
    ("Baiduspider", "Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)", 2),
    ("Twitterbot", "Twitterbot/1.0", 1),
)  # fmt: skip
_TOOLS = (
    ("-", ()), ("curl/7.{a}.{b}", ((29, 58), (0, 2))), ("Wget/1.{a}.{b} (linux-gnu)", ((12, 19), (0, 2))),
    ("python-requests/2.{a}.{b}", ((2, 18), (0, 3))), ("Go-http-client/1.1", ()),
    ("Java/1.8.0_{a}", ((60, 141),)), ("okhttp/3.{a}.{b}", ((2, 8), (0, 2))),
    ("Apache-HttpClient/4.{a}.{b} (Java/1.8.0_{c})", ((3, 5), (1, 3), (60, 131))),
    ("Python-urllib/{a}.{b}", ((2, 3), (6, 7))), ("Ruby", ()),
    ("check_http/v2.{a}.{b} (nagios-plugins 2.{a}.{b})", ((0, 2), (0, 4))),
    ("Faraday v0.{a}.{b}", ((9, 12), (0, 1))), ("node-fetch/1.0 (+https://github.com/bitinn/node-fetch)", ()),
    ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) PhantomJS/2.{a}.{b} "
     "Safari/537.36", ((0, 1), (0, 1))),
    ("Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{a}.0.{b}.{c} "
     "Safari/537.36 OPR/{a}.0 (Edition Campaign {b})", ((40, 48), (2200, 2700), (40, 120))),
)  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentSpec:
    """One (browser family, OS family) pair of the catalog.

    Attributes:
        name: ``useragent.name``.
        os_name: ``useragent.os_name``.
        share: target share of events in percent.
        build: ``build(rng) -> (agent string, useragent.os)``; called repeatedly for new variants.
    """

    name: str
    os_name: str
    share: float
    build: Callable[[random.Random], tuple[str, str]]


_T = TypeVar("_T")


@functools.cache
def _cum(weights: tuple[float, ...]) -> tuple[float, ...]:
    return tuple(itertools.accumulate(weights))


def _pick(rng: random.Random, items: Sequence[_T], weights: tuple[float, ...]) -> _T:
    cw = _cum(weights)
    return items[bisect.bisect_right(cw, rng.random() * cw[-1], 0, len(cw) - 1)]


def _chrome_version(rng: random.Random, max_major: int = 99) -> str:
    rows = _CHROME if max_major >= 99 else _CHROME_OLD
    major, build, _ = _pick(rng, rows, tuple(r[2] for r in rows))
    patch = _CHROME_PATCHES[min(int(rng.expovariate(0.35)), len(_CHROME_PATCHES) - 1)]
    return f"{major}.0.{build}.{patch}"


def _mac(rng: random.Random) -> str:
    return str(_pick(rng, _MAC, _MAC_WEIGHTS))


def _win_token(os_name: str, rng: random.Random) -> str:
    return _WIN[os_name] + str(_pick(rng, _WIN_ARCH, _WIN_ARCH_WEIGHTS))


def _chrome_windows(os_name: str) -> Callable[[random.Random], tuple[str, str]]:
    def build(rng: random.Random) -> tuple[str, str]:
        version = _chrome_version(rng, 49 if os_name in ("Windows XP", "Windows Vista") else 99)
        return (
            f"Mozilla/5.0 ({_win_token(os_name, rng)}) AppleWebKit/537.36 (KHTML, like Gecko) "
            f"Chrome/{version} Safari/537.36",
            os_name,
        )

    return build


def _chrome_mac(rng: random.Random) -> tuple[str, str]:
    mac = _mac(rng)
    return (
        f"Mozilla/5.0 (Macintosh; Intel Mac OS X {mac}) AppleWebKit/537.36 (KHTML, like Gecko) "
        f"Chrome/{_chrome_version(rng)} Safari/537.36",
        "Mac OS X " + mac.replace("_", "."),
    )


def _chrome_linux(rng: random.Random) -> tuple[str, str]:
    arch = "x86_64" if rng.random() < 0.93 else "i686"
    return (
        f"Mozilla/5.0 (X11; Linux {arch}) AppleWebKit/537.36 (KHTML, like Gecko) "
        f"Chrome/{_chrome_version(rng)} Safari/537.36",
        "Linux",
    )


def _chromium_ubuntu(rng: random.Random) -> tuple[str, str]:
    version = _chrome_version(rng)
    return (
        f"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Ubuntu Chromium/{version} "
        f"Chrome/{version} Safari/537.36",
        "Ubuntu",
    )


def _chrome_os(rng: random.Random) -> tuple[str, str]:
    build = rng.choice(("9592.96.0", "9460.73.0", "9202.64.0", "9000.91.0"))
    return (
        f"Mozilla/5.0 (X11; CrOS x86_64 {build}) AppleWebKit/537.36 (KHTML, like Gecko) "
        f"Chrome/{_chrome_version(rng)} Safari/537.36",
        "Chrome OS",
    )


def _firefox_version(rng: random.Random) -> int:
    return int(_pick(rng, tuple(v for v, _ in _FIREFOX), tuple(w for _, w in _FIREFOX)))


def _firefox_windows(os_name: str) -> Callable[[random.Random], tuple[str, str]]:
    def build(rng: random.Random) -> tuple[str, str]:
        v = _firefox_version(rng)
        return f"Mozilla/5.0 ({_win_token(os_name, rng)}; rv:{v}.0) Gecko/20100101 Firefox/{v}.0", os_name

    return build


def _firefox_mac(rng: random.Random) -> tuple[str, str]:
    v = _firefox_version(rng)
    mac = ".".join(_mac(rng).split("_")[:2])
    return (
        f"Mozilla/5.0 (Macintosh; Intel Mac OS X {mac}; rv:{v}.0) Gecko/20100101 Firefox/{v}.0",
        "Mac OS X " + mac,
    )


def _firefox_linux(rng: random.Random) -> tuple[str, str]:
    v = _firefox_version(rng)
    platform = rng.choices(("X11; Linux x86_64", "X11; Linux i686", "X11; Fedora; Linux x86_64"), (8, 1, 1))[
        0
    ]
    return f"Mozilla/5.0 ({platform}; rv:{v}.0) Gecko/20100101 Firefox/{v}.0", "Linux"


def _firefox_ubuntu(rng: random.Random) -> tuple[str, str]:
    v = _firefox_version(rng)
    arch = "x86_64" if rng.random() < 0.9 else "i686"
    return f"Mozilla/5.0 (X11; Ubuntu; Linux {arch}; rv:{v}.0) Gecko/20100101 Firefox/{v}.0", "Ubuntu"


def _safari_mac(rng: random.Random) -> tuple[str, str]:
    mac = _mac(rng)
    version, webkit = _pick(rng, _SAFARI, _SAFARI_WEIGHTS)
    return (
        f"Mozilla/5.0 (Macintosh; Intel Mac OS X {mac}) AppleWebKit/{webkit} (KHTML, like Gecko) "
        f"Version/{version} Safari/{webkit}",
        "Mac OS X " + mac.replace("_", "."),
    )


def _ie(os_name: str) -> Callable[[random.Random], tuple[str, str]]:
    def build(rng: random.Random) -> tuple[str, str]:
        token = _WIN[os_name]
        if os_name in ("Windows XP", "Windows Vista") or rng.random() < 0.15:
            ie, trident = (
                ("8.0", "4.0") if os_name == "Windows XP" else rng.choice((("9.0", "5.0"), ("10.0", "6.0")))
            )
            extra = rng.choice(
                ("", "; .NET CLR 2.0.50727", "; SLCC2; .NET CLR 3.5.30729", "; .NET4.0C; .NET4.0E")
            )
            arch = rng.choice(("", "; WOW64"))
            return f"Mozilla/5.0 (compatible; MSIE {ie}; {token}{arch}; Trident/{trident}{extra})", os_name
        arch = str(_pick(rng, _WIN_ARCH, _WIN_ARCH_WEIGHTS))
        extra = rng.choice(
            (
                "", "; Touch", "; .NET4.0C; .NET4.0E", "; MAAU", "; NP06", "; MALNJS", "; ASU2JS",
                "; SLCC2; .NET CLR 2.0.50727; .NET CLR 3.5.30729; .NET CLR 3.0.30729; Media Center PC 6.0; "
                ".NET4.0C; .NET4.0E; InfoPath.3",
                "; SLCC2; .NET CLR 2.0.50727; .NET CLR 3.5.30729; .NET CLR 3.0.30729; .NET4.0C; .NET4.0E; "
                "GWX:QUALIFIED; MASMJS",
            )
        )  # fmt: skip
        return f"Mozilla/5.0 ({token}{arch}; Trident/7.0{extra}; rv:11.0) like Gecko", os_name

    return build


def _edge(rng: random.Random) -> tuple[str, str]:
    edge = rng.choices(("15.15063", "14.14393", "13.10586", "16.16257"), (10, 6, 2, 1))[0]
    chrome = {"15": "52.0.2743.116", "14": "51.0.2704.79", "13": "46.0.2486.0", "16": "58.0.3029.110"}[
        edge[:2]
    ]
    return (
        f"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{chrome} "
        f"Safari/537.36 Edge/{edge}",
        "Windows 10",
    )


def _opera(os_name: str) -> Callable[[random.Random], tuple[str, str]]:
    def build(rng: random.Random) -> tuple[str, str]:
        opr = rng.choice(("46.0.2597.57", "45.0.2552.898", "46.0.2597.39", "44.0.2510.1449"))
        if os_name == "Mac OS X":
            mac = _mac(rng)
            platform, os_value = f"Macintosh; Intel Mac OS X {mac}", "Mac OS X " + mac.replace("_", ".")
        elif os_name == "Linux":
            platform, os_value = "X11; Linux x86_64", "Linux"
        else:
            platform, os_value = _win_token(os_name, rng), os_name
        return (
            f"Mozilla/5.0 ({platform}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{_chrome_version(rng)} "
            f"Safari/537.36 OPR/{opr}",
            os_value,
        )

    return build


def _ios(browser: str) -> Callable[[random.Random], tuple[str, str]]:
    def build(rng: random.Random) -> tuple[str, str]:
        ios, mobile = _pick(rng, _IOS, _IOS_WEIGHTS)
        device, cpu = _pick(rng, _IOS_DEVICES, _IOS_DEVICE_WEIGHTS)
        major = ios.split("_")[0]
        webkit = "603.1.30" if major != "9" else "601.1.46"
        if browser == "Chrome Mobile iOS":
            tail = f"CriOS/{_chrome_version(rng)} Mobile/{mobile} Safari/602.1"
        elif browser == "Facebook":
            fbav = f"{rng.randint(90, 140)}.0.0.{rng.randint(10, 60)}.{rng.randint(40, 99)}"
            tail = f"Mobile/{mobile} [FBAN/FBIOS;FBAV/{fbav}]"
        else:
            tail = f"Version/{major}.0 Mobile/{mobile} Safari/{webkit.rsplit('.', 1)[0]}"
        return (
            f"Mozilla/5.0 ({device}; {cpu} {ios} like Mac OS X) AppleWebKit/{webkit} "
            f"(KHTML, like Gecko) {tail}",
            "iOS " + ios.replace("_", "."),
        )

    return build


def _android(browser: str) -> Callable[[random.Random], tuple[str, str]]:
    def build(rng: random.Random) -> tuple[str, str]:
        model, version, build_id = rng.choice(_ANDROID_DEVICES)
        if browser == "Firefox Mobile":
            v = _firefox_version(rng)
            return (
                f"Mozilla/5.0 (Android {version}; Mobile; rv:{v}.0) Gecko/{v}.0 Firefox/{v}.0",
                "Android " + version,
            )
        if browser == "Samsung Internet":
            samsung = rng.choice(("5.4", "5.2", "4.0", "6.2"))
            tail = f"SamsungBrowser/{samsung} Chrome/51.0.2704.106 Mobile Safari/537.36"
        else:
            mobile = "Mobile " if not model.startswith(("SM-T", "Nexus 7")) else ""
            tail = f"Chrome/{_chrome_version(rng)} {mobile}Safari/537.36"
        return (
            f"Mozilla/5.0 (Linux; Android {version}; {model} Build/{build_id}) AppleWebKit/537.36 "
            f"(KHTML, like Gecko) {tail}",
            "Android " + version,
        )

    return build


def _bot(agent: str) -> Callable[[random.Random], tuple[str, str]]:
    def build(rng: random.Random) -> tuple[str, str]:
        return agent, "Other"

    return build


def _tool(rng: random.Random) -> tuple[str, str]:
    template, ranges = rng.choices(_TOOLS, weights=(22, 12, 6, 8, 6, 8, 5, 6, 2, 1, 3, 1, 1, 5, 3))[0]
    values = {key: rng.randint(lo, hi) for key, (lo, hi) in zip("abc", ranges, strict=False)}
    return template.format(**values), "Other"


def agent_specs() -> tuple[AgentSpec, ...]:
    """The catalog's (family, OS family) pairs with their target shares (percent of events)."""
    specs: list[AgentSpec] = [
        AgentSpec(name="Chrome", os_name="Mac OS X", share=19.8, build=_chrome_mac),
        AgentSpec(name="Chrome", os_name="Windows 7", share=17.8, build=_chrome_windows("Windows 7")),
        AgentSpec(name="Chrome", os_name="Linux", share=8.5, build=_chrome_linux),
        AgentSpec(name="Chrome", os_name="Windows 10", share=5.5, build=_chrome_windows("Windows 10")),
        AgentSpec(name="Chrome", os_name="Windows 8.1", share=1.8, build=_chrome_windows("Windows 8.1")),
        AgentSpec(name="Chrome", os_name="Ubuntu", share=1.5, build=_chromium_ubuntu),
        AgentSpec(name="Chrome", os_name="Windows XP", share=0.6, build=_chrome_windows("Windows XP")),
        AgentSpec(name="Chrome", os_name="Chrome OS", share=0.4, build=_chrome_os),
        AgentSpec(name="Chrome", os_name="Windows 8", share=0.3, build=_chrome_windows("Windows 8")),
        AgentSpec(name="Chrome", os_name="Windows Vista", share=0.1, build=_chrome_windows("Windows Vista")),
        AgentSpec(name="Firefox", os_name="Mac OS X", share=9.8, build=_firefox_mac),
        AgentSpec(name="Firefox", os_name="Windows 7", share=9.1, build=_firefox_windows("Windows 7")),
        AgentSpec(name="Firefox", os_name="Ubuntu", share=4.9, build=_firefox_ubuntu),
        AgentSpec(name="Firefox", os_name="Linux", share=2.3, build=_firefox_linux),
        AgentSpec(name="Firefox", os_name="Windows 10", share=2.2, build=_firefox_windows("Windows 10")),
        AgentSpec(name="Firefox", os_name="Windows 8.1", share=0.4, build=_firefox_windows("Windows 8.1")),
        AgentSpec(name="Firefox", os_name="Windows XP", share=0.1, build=_firefox_windows("Windows XP")),
        AgentSpec(
            name="Firefox", os_name="Windows Vista", share=0.1, build=_firefox_windows("Windows Vista")
        ),
        AgentSpec(name="Safari", os_name="Mac OS X", share=3.0, build=_safari_mac),
        AgentSpec(name="IE", os_name="Windows 7", share=1.2, build=_ie("Windows 7")),
        AgentSpec(name="IE", os_name="Windows 10", share=0.3, build=_ie("Windows 10")),
        AgentSpec(name="IE", os_name="Windows 8.1", share=0.3, build=_ie("Windows 8.1")),
        AgentSpec(name="IE", os_name="Windows 8", share=0.1, build=_ie("Windows 8")),
        AgentSpec(name="IE", os_name="Windows XP", share=0.05, build=_ie("Windows XP")),
        AgentSpec(name="IE", os_name="Windows Vista", share=0.05, build=_ie("Windows Vista")),
        AgentSpec(name="Other", os_name="Other", share=4.0, build=_tool),
        AgentSpec(name="Chrome Mobile", os_name="Android", share=3.0, build=_android("Chrome Mobile")),
        AgentSpec(name="Samsung Internet", os_name="Android", share=0.2, build=_android("Samsung Internet")),
        AgentSpec(name="Firefox Mobile", os_name="Android", share=0.1, build=_android("Firefox Mobile")),
        AgentSpec(name="Mobile Safari", os_name="iOS", share=2.3, build=_ios("Mobile Safari")),
        AgentSpec(name="Chrome Mobile iOS", os_name="iOS", share=0.2, build=_ios("Chrome Mobile iOS")),
        AgentSpec(name="Facebook", os_name="iOS", share=0.1, build=_ios("Facebook")),
        AgentSpec(name="Edge", os_name="Windows 10", share=0.9, build=_edge),
        AgentSpec(name="Opera", os_name="Windows 7", share=0.25, build=_opera("Windows 7")),
        AgentSpec(name="Opera", os_name="Mac OS X", share=0.1, build=_opera("Mac OS X")),
        AgentSpec(name="Opera", os_name="Linux", share=0.1, build=_opera("Linux")),
        AgentSpec(name="Opera", os_name="Windows 10", share=0.05, build=_opera("Windows 10")),
    ]
    for name, agent, weight in _BOTS:
        specs.append(AgentSpec(name=name, os_name="Other", share=weight / 10, build=_bot(agent)))
    return tuple(specs)
