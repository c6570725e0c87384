"""Reading py-spy's collapsed stacks: where a load driver spends its CPU.

py-spy ``record --format raw`` writes one line per distinct stack, ``frame;frame;...;frame COUNT``,
root first. With ``--subprocesses`` the stack starts with one ``process PID:"cmdline"`` frame per
process of the chain from the profiled root down to the sampled process. Function frames look like
``name (path/file.py:LINE)``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

_FRAME = re.compile(r"^(?P<name>.*) \((?P<file>[^()]*?)(?::(?P<line>\d+))?\)$")
_PROCESS = re.compile(r'^process (?P<pid>\d+):"(?P<cmd>.*)"$')


@dataclass
class Profile:
    """Aggregated samples.

    Attributes:
        total: all samples.
        self_samples: samples per function (``"name (file)"``) at the top of the stack.
        inclusive: samples per function anywhere on the stack (counted once per stack).
        self_lines: samples per ``"name (file:line)"`` at the top of the stack.
        processes: samples per process (``"PID cmdline"``; empty key without ``--subprocesses``).
    """

    total: int = 0
    self_samples: Counter[str] = field(default_factory=Counter)
    inclusive: Counter[str] = field(default_factory=Counter)
    self_lines: Counter[str] = field(default_factory=Counter)
    processes: Counter[str] = field(default_factory=Counter)


def _split_frames(stack: str) -> list[str]:
    # Process frames quote a command line that may contain ';': take them first.
    frames: list[str] = []
    rest = stack
    while rest.startswith("process "):
        end = rest.find('";')
        if end < 0:
            frames.append(rest)
            return frames
        frames.append(rest[: end + 1])
        rest = rest[end + 2 :]
    frames.extend(f for f in rest.split(";") if f)
    return frames


def function_key(frame: str, *, with_line: bool = False) -> str:
    """``"name (file)"`` (or with ``:line``) of a py-spy frame; other frames unchanged."""
    m = _FRAME.match(frame)
    if not m:
        return frame
    if with_line and m.group("line"):
        return f"{m.group('name')} ({m.group('file')}:{m.group('line')})"
    return f"{m.group('name')} ({m.group('file')})"


def parse_collapsed(lines: Iterable[str]) -> Profile:
    """Aggregate py-spy raw (collapsed) output lines into a :class:`Profile`."""
    prof = Profile()
    for raw in lines:
        raw = raw.rstrip("\n")
        if not raw:
            continue
        stack, _, count_text = raw.rpartition(" ")
        try:
            count = int(count_text)
        except ValueError:
            continue
        frames = _split_frames(stack)
        procs = [f for f in frames if _PROCESS.match(f)]
        funcs = [f for f in frames if not _PROCESS.match(f)]
        prof.total += count
        if procs:
            m = _PROCESS.match(procs[-1])
            assert m is not None
            prof.processes[f"{m.group('pid')} {m.group('cmd')}"] += count
        else:
            prof.processes[""] += count
        if not funcs:
            continue
        prof.self_samples[function_key(funcs[-1])] += count
        prof.self_lines[function_key(funcs[-1], with_line=True)] += count
        for key in {function_key(f) for f in funcs}:
            prof.inclusive[key] += count
    return prof


def render_top(prof: Profile, *, top: int = 25, focus: str | None = "esbench/") -> str:
    """Text report: samples per process, then the top functions by self and by inclusive samples.

    ``focus``: also list the top inclusive functions whose file contains this string (the esbench
    code on the hot path), None to skip.
    """
    if prof.total == 0:
        return "no samples (was the process busy? py-spy records only non-idle stacks)"

    def pct(n: int) -> str:
        return f"{100.0 * n / prof.total:5.1f}%"

    out = [f"samples: {prof.total}", "", "per process:"]
    for key, n in prof.processes.most_common(10):
        out.append(f"  {pct(n)}  {key[:140] or '(single process)'}")
    out += ["", f"top {top} by self time (function at the top of the stack):"]
    out += [f"  {pct(n)}  {k}" for k, n in prof.self_samples.most_common(top)]
    out += ["", f"top {top} lines by self time:"]
    out += [f"  {pct(n)}  {k}" for k, n in prof.self_lines.most_common(top)]
    out += ["", f"top {top} by inclusive time (function anywhere on the stack):"]
    out += [f"  {pct(n)}  {k}" for k, n in prof.inclusive.most_common(top)]
    if focus:
        focused = [(k, n) for k, n in prof.inclusive.most_common() if focus in k][:top]
        out += ["", f"top {top} inclusive in files matching {focus!r}:"]
        out += [f"  {pct(n)}  {k}" for k, n in focused] or ["  (none)"]
    return "\n".join(out)
