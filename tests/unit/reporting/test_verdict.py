"""The last line of a race: [SUCCESS] only when every task measured something and none failed on
every request."""

from esbench.records import ErrorDescription, RaceResult, TaskResult
from esbench.reporting.verdict import last_line_status, race_problems, worst_error_rate


def race(*tasks: TaskResult, status: str = "completed") -> RaceResult:
    return RaceResult(
        race_id="r", timestamp="2026-11-25T10:00:00Z", track="t", challenge="c", status=status, tasks=tasks
    )


def task(name: str, samples: int, errors: int, *, warmup: int = 0, reported: bool = True) -> TaskResult:
    return TaskResult(
        task=name,
        operation=name,
        operation_type="search",
        sample_count=samples,
        error_count=errors,
        warmup_sample_count=warmup,
        include_in_reporting=reported,
        error_descriptions=(
            (
                ErrorDescription(
                    error_type="404", http_status=404, es_type="index_not_found_exception", count=errors
                ),
            )
            if errors
            else ()
        ),
    )


def test_the_last_line_names_what_went_wrong() -> None:
    sound = race(task("q", 20, 1), task("delete-index", 0, 0, reported=False))
    assert race_problems(sound) == () and last_line_status("completed", ()) == "[SUCCESS]"

    broken = race(task("q", 20, 20), task("index-append", 0, 0, warmup=16), task("empty", 0, 0))
    line = last_line_status("completed", race_problems(broken))
    assert line.startswith("[WARNING] completed with errors: task 'q' failed on every request (20 of 20: ")
    assert "task 'index-append' measured nothing: its 16 requests all fell inside its warmup" in line
    assert "task 'empty' measured nothing: it recorded no request" in line
    # A failed or interrupted race keeps its word.
    assert last_line_status("failed", race_problems(broken)) == "[FAILURE]"
    assert last_line_status("interrupted", ()) == "[INTERRUPTED]"


def test_worst_error_rate() -> None:
    assert worst_error_rate(race(task("a", 10, 1), task("b", 4, 2), task("c", 0, 0))) == ("b", 50.0)
    assert worst_error_rate(race(task("c", 0, 0))) is None
