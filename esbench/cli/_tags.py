"""User tags on the command line: ``--user-tag=key:value,...`` (Rally's syntax)."""

from __future__ import annotations

from collections.abc import Sequence

from esbench.exceptions import UserError


def parse_tag_filter(values: Sequence[str], *, option: str = "--user-tag") -> dict[str, tuple[str, ...]]:
    """A user tag filter: ``("setup:a", "setup:b,env:ci")`` -> ``{"setup": ("a", "b"), "env": ("ci",)}``.

    A race matches when, for every key, its tag has one of the values (a race has one value per key,
    so a key given twice means either value). Values stay strings (they are compared as text).

    Raises:
        UserError: an item without ``:`` or with an empty key.
    """
    wanted: dict[str, tuple[str, ...]] = {}
    for value in values:
        for item in value.split(","):
            item = item.strip()
            if not item:
                continue
            key, sep, val = item.partition(":")
            if not sep or not key.strip():
                raise UserError(
                    f"Invalid {option} value {item!r}: write KEY:VALUE (several separated by commas), "
                    "e.g. --user-tag=setup:3nodes."
                )
            key, val = key.strip(), val.strip()
            if val not in wanted.get(key, ()):
                wanted[key] = (*wanted.get(key, ()), val)
    return wanted


def parse_user_tags(text: str) -> dict[str, str]:
    """The tags of a new race: ``"setup:3nodes,disk:raid0"`` -> ``{"setup": "3nodes", "disk": "raid0"}``.

    A race has one value per key, so a key given twice with different values is an error (rather
    than silently keeping one of them).

    Raises:
        UserError: an item without ``:``, an empty key, or a key with two values.
    """
    tags = parse_tag_filter([text])
    twice = sorted(k for k, values in tags.items() if len(values) > 1)
    if twice:
        raise UserError(
            f"--user-tag gives {', '.join(repr(k) for k in twice)} more than one value "
            f"({'; '.join(k + ': ' + ', '.join(tags[k]) for k in twice)}). A race has one value per tag key: "
            "keep one, or use another key."
        )
    return {k: values[0] for k, values in tags.items()}
