"""Branch choice for a distribution version: the cases of Rally 2.13's ``test_find_best_match``."""

from __future__ import annotations

import pytest

from esbench.track.versions import best_match, version_variants

A = ["1.7", "2", "5.0.0-alpha1", "5", "master"]
B = ["7", "7.11", "7.2", "5", "6", "master"]


@pytest.mark.parametrize(
    ("branches", "version", "expected"),
    [
        (A, "6.0.0-alpha1", "master"),  # newer than every branch
        (A, "5.1.0-SNAPSHOT", "5"),
        (A, None, "master"),
        (A, "0.4", None),  # not a version: rejected
        (["7", "7.10.2", "7.11", "7.2", "5", "6", "master"], "7.10.2", "7.10.2"),  # exact
        (["7", "7.10", "master"], "7.1.0", "7"),  # major
        (B, "7.11.0", "7.11"),
        (B, "7.12.0", "7.11"),  # nearest earlier minor
        (B, "7.3.0", "7.2"),
        (B, "7.10.0", "7.2"),
        # branches with a patch level are ignored for the nearest-minor step
        (["7", "7.1", "7.11.1", "7.11.0", "7.2", "5", "6", "master"], "7.12.0", "7.2"),
        (B, "7.1.0", "7"),
        (["8.15", "9.2", "master"], "9.3.5", "9.2"),
    ],
)
def test_best_match_follows_rally(branches: list[str], version: str | None, expected: str | None) -> None:
    assert best_match(branches, version) == expected


def test_version_variants_most_specific_first() -> None:
    assert version_variants("8.19.0-SNAPSHOT") == ["8.19.0-SNAPSHOT", "8.19.0", "8.19", "8"]
    assert version_variants("9.1.0") == ["9.1.0", "9.1", "9"]
    with pytest.raises(ValueError, match=r"'9\.1' is not a version of the form major\.minor\.patch"):
        version_variants("9.1")
