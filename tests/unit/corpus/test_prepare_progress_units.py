"""Corpus preparation's progress lines: what is being done, in a unit that fits the file."""

from esbench.corpus.prepare import _Reporter


def test_offset_index_progress_of_a_small_file_is_in_kilobytes() -> None:
    lines: list[str] = []
    reporter = _Reporter(lines.append)
    reporter.step("Building the offset index of [documents.json]", 14_600, 14_600, "bytes")
    reporter.step("Reading [big.json]", 3_000_000, 6_000_000, "bytes")
    reporter.step("Reading [tiny.json]", 10, 20, "bytes")
    assert lines == [
        "Building the offset index of [documents.json]: 14.6 of 14.6 kB (100%)",
        "Reading [big.json]: 3.0 of 6.0 MB (50%)",
        "Reading [tiny.json]: 10 of 20 bytes (50%)",
    ]
