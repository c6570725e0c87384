"""Rebuild ``eventdata_geo.json`` (cities and countries for the eventdata generator).

Cities with coordinates come from Faker's ``faker.providers.geo.Provider.land_coords`` (971 places
in 135 countries, extracted by Faker from geonames.org under CC BY 3.0). The generator never
imports Faker: this script freezes the list into a data file, so the generated corpus does not
change when Faker is upgraded. Country names follow MaxMind GeoIP's English names; the traffic
shares below are esbench's choice (the six largest match the original eventdata corpus: United
States 29 %, China 7.5 %, France 6.5 %, India 6 %, Germany 6 %, United Kingdom 5 %).

Run: ``python esbench/corpus/generators/data/build_eventdata_geo.py`` (needs ``faker``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

COUNTRY_NAMES = {
    "AD": "Andorra", "AF": "Afghanistan", "AM": "Armenia", "AO": "Angola", "AR": "Argentina",
    "AT": "Austria", "AU": "Australia", "AZ": "Azerbaijan", "BA": "Bosnia and Herzegovina",
    "BD": "Bangladesh", "BE": "Belgium", "BG": "Bulgaria", "BJ": "Benin", "BO": "Bolivia",
    "BR": "Brazil", "BW": "Botswana", "BY": "Belarus", "CA": "Canada", "CD": "Congo (DRC)",
    "CF": "Central African Republic", "CG": "Congo", "CH": "Switzerland", "CI": "Ivory Coast",
    "CL": "Chile", "CM": "Cameroon", "CN": "China", "CO": "Colombia", "CR": "Costa Rica",
    "CU": "Cuba", "CZ": "Czech Republic", "DE": "Germany", "DJ": "Djibouti", "DK": "Denmark",
    "DO": "Dominican Republic", "DZ": "Algeria", "EC": "Ecuador", "EE": "Estonia", "EG": "Egypt",
    "ES": "Spain", "ET": "Ethiopia", "FI": "Finland", "FR": "France", "GA": "Gabon",
    "GB": "United Kingdom", "GD": "Grenada", "GE": "Georgia", "GH": "Ghana", "GM": "Gambia",
    "GN": "Guinea", "GT": "Guatemala", "HK": "Hong Kong", "HN": "Honduras", "HR": "Croatia",
    "HT": "Haiti", "ID": "Indonesia", "IE": "Ireland", "IL": "Israel", "IN": "India", "IQ": "Iraq",
    "IR": "Iran", "IT": "Italy", "JM": "Jamaica", "JP": "Japan", "KE": "Kenya", "KG": "Kyrgyzstan",
    "KH": "Cambodia", "KR": "South Korea", "KZ": "Kazakhstan", "LK": "Sri Lanka", "LR": "Liberia",
    "LT": "Lithuania", "LY": "Libya", "MA": "Morocco", "MD": "Moldova", "ME": "Montenegro",
    "MG": "Madagascar", "MK": "Macedonia", "ML": "Mali", "MM": "Myanmar", "MN": "Mongolia",
    "MQ": "Martinique", "MT": "Malta", "MW": "Malawi", "MX": "Mexico", "MY": "Malaysia",
    "MZ": "Mozambique", "NA": "Namibia", "NE": "Niger", "NG": "Nigeria", "NI": "Nicaragua",
    "NL": "Netherlands", "NO": "Norway", "NZ": "New Zealand", "PA": "Panama", "PE": "Peru",
    "PG": "Papua New Guinea", "PH": "Philippines", "PK": "Pakistan", "PL": "Poland",
    "PR": "Puerto Rico", "PS": "Palestine", "PT": "Portugal", "RE": "Reunion", "RO": "Romania",
    "RS": "Serbia", "RU": "Russia", "RW": "Rwanda", "SA": "Saudi Arabia", "SD": "Sudan",
    "SE": "Sweden", "SK": "Slovakia", "SL": "Sierra Leone", "SO": "Somalia", "SV": "El Salvador",
    "SY": "Syria", "TD": "Chad", "TH": "Thailand", "TJ": "Tajikistan", "TL": "East Timor",
    "TN": "Tunisia", "TR": "Turkey", "TT": "Trinidad and Tobago", "TW": "Taiwan", "TZ": "Tanzania",
    "UA": "Ukraine", "UG": "Uganda", "US": "United States", "UY": "Uruguay", "UZ": "Uzbekistan",
    "VE": "Venezuela", "VN": "Vietnam", "VU": "Vanuatu", "XK": "Kosovo", "YE": "Yemen",
    "ZA": "South Africa",
}  # fmt: skip

# Percent of events per country; the rest of the 135 countries share what is left equally.
TOP_SHARES = {"US": 29.0, "CN": 7.5, "FR": 6.5, "IN": 6.0, "DE": 6.0, "GB": 5.0}
OTHER_WEIGHTS = {
    "BR": 2.6, "JP": 2.4, "CA": 2.3, "RU": 2.2, "ES": 1.9, "IT": 1.8, "NL": 1.7, "AU": 1.5,
    "KR": 1.3, "PL": 1.1, "SE": 1.0, "CH": 0.9, "BE": 0.9, "TR": 0.9, "MX": 0.9, "ID": 0.8,
    "UA": 0.8, "CZ": 0.7, "AT": 0.6, "IL": 0.6, "TW": 0.6, "HK": 0.6, "PH": 0.6, "VN": 0.5,
    "AR": 0.5, "DK": 0.5, "NO": 0.5, "FI": 0.4, "IE": 0.4, "PT": 0.4, "TH": 0.4, "MY": 0.4,
    "PK": 0.4, "ZA": 0.4, "IR": 0.4, "RO": 0.4, "CO": 0.35, "EG": 0.3, "NZ": 0.3, "CL": 0.3,
    "BG": 0.25, "SA": 0.25, "BD": 0.25, "NG": 0.25, "SK": 0.2, "RS": 0.2, "BY": 0.2, "PE": 0.2,
    "HR": 0.15, "LT": 0.15, "KE": 0.15, "MA": 0.15, "VE": 0.15, "KZ": 0.15, "LK": 0.1, "EE": 0.1,
}  # fmt: skip
MINOR_WEIGHT = 0.03


def build() -> dict[str, object]:
    """The data file's content: ``countries`` [code, name, share %, lon, lat] and ``cities``."""
    from faker.providers.geo import Provider

    cities = [[code, name, float(lon), float(lat)] for lat, lon, name, code, _tz in Provider.land_coords]
    by_country: dict[str, list[list[object]]] = {}
    for city in cities:
        by_country.setdefault(str(city[0]), []).append(city)
    others = {code: OTHER_WEIGHTS.get(code, MINOR_WEIGHT) for code in by_country if code not in TOP_SHARES}
    scale = (100.0 - sum(TOP_SHARES.values())) / sum(others.values())
    countries = []
    for code in sorted(by_country):
        share = TOP_SHARES.get(code, others.get(code, 0.0) * scale)
        members = by_country[code]
        # GeoIP answers some lookups with the country only; use the mean of its cities as its point.
        lon = sum(cast(float, c[2]) for c in members) / len(members)
        lat = sum(cast(float, c[3]) for c in members) / len(members)
        countries.append([code, COUNTRY_NAMES[code], round(share, 6), round(lon, 4), round(lat, 4)])
    return {
        "source": "cities: Faker land_coords (geonames.org, CC BY 3.0); shares: esbench",
        "countries": countries,
        "cities": sorted(cities, key=lambda c: (c[0], c[1])),
    }


if __name__ == "__main__":
    out = Path(__file__).with_name("eventdata_geo.json")
    out.write_text(json.dumps(build(), separators=(",", ":"), ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out}")
