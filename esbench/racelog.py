"""The race log: ``esbench.log`` in the race directory, written with Python logging by every process.

:func:`start_race_log` (called by race control when the race directory exists) adds a handler to the
root logger, so esbench's own loggers, a track plugin's loggers (``logging.getLogger(__name__)`` in
``track.py``) and library loggers all end up in the file, at INFO (DEBUG with ``--verbose``). The
load driver's worker processes start without any logging configuration (new interpreters): each
calls :func:`attach_worker_log` with the path it receives in its first message and appends to the
same file.

Several processes write one file safely: the file is opened with ``O_APPEND`` and every record is
one ``write(2)`` of the whole formatted line(s), which Linux applies atomically at the end of the
file for regular files, so records of different processes never interleave (each line carries the
process name). No process holds a lock the others wait for.

Credentials are never written: every record passes :func:`redact`, which removes the race's
secrets (passwords, API keys and the ``Authorization`` header values made from them, from
``--client-options``, the environment and ``user:password@`` in target hosts), any
``Authorization: Basic/ApiKey/Bearer ...`` value and ``user:password@`` in URLs.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

from esbench.home import esbench_home
from esbench.records import RaceResult, describe_line

#: File name of the race log inside the race directory.
LOG_FILE_NAME = "esbench.log"
#: The logger of a race's outcome lines: it writes to the race log file only, not the console.
OUTCOME_LOGGER = "esbench.racelog.outcome"
#: One line per record; the process name tells the coordinator (MainProcess) from the workers.
LOG_FORMAT = "%(asctime)s %(processName)s %(levelname)s %(name)s: %(message)s"
#: Descriptions per task written to the log at the end of the race.
SUMMARY_DESCRIPTIONS = 5

_MASK = "*****"
_AUTH_HEADER = re.compile(
    r"(?i)(authorization['\"]?\s*[:=]\s*['\"]?)((?:basic|apikey|bearer)\s+)[^\s'\",;}]+"
)
_URL_USERINFO = re.compile(r"(://)[^/\s@]+@")
# Secrets shorter than this are only masked as whole words: masking every "ab" would garble the log.
_SHORT_SECRET = 4

_active: RaceLog | None = None


def race_log_path(race_id: str) -> Path:
    """Where the race log of ``race_id`` is (``$ESBENCH_HOME/races/RACE_ID/esbench.log``)."""
    return esbench_home() / "races" / race_id / LOG_FILE_NAME


def existing_race_log(race_id: str) -> Path | None:
    """The race log of ``race_id`` if it exists on this machine, else None."""
    path = race_log_path(race_id)
    return path if path.is_file() else None


class Credentials(Protocol):
    """What :func:`secrets_of` reads of resolved credentials
    (:class:`esbench.driver.transport.client.Credentials`): a protocol, so that the race log, on the
    ground floor, need not import the load driver that resolves them."""

    @property
    def password(self) -> str | None:
        """The basic-auth password, or None."""
        ...

    @property
    def api_key(self) -> str | None:
        """The API key (``id:key`` or already encoded), or None."""
        ...

    def headers(self) -> dict[str, str]:
        """The ``authorization`` header built from the credentials (empty without any)."""
        ...


def secrets_of(credentials: Credentials) -> tuple[str, ...]:
    """The strings of ``credentials`` that must never appear in a log: password, API key (and its
    ``id``/``key`` halves) and the ``Authorization`` header value built from them."""
    values: list[str] = []
    if credentials.password:
        values.append(credentials.password)
    if credentials.api_key:
        values.append(credentials.api_key)
        values.extend(part for part in credentials.api_key.split(":", 1)[1:] if part)
    for header in credentials.headers().values():
        values.append(header.split(" ", 1)[-1])
    return tuple(dict.fromkeys(v for v in values if v))


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with credentials replaced by ``*****`` (see module doc)."""
    for secret in sorted(secrets, key=len, reverse=True):
        if len(secret) >= _SHORT_SECRET:
            text = text.replace(secret, _MASK)
        elif secret:
            text = re.sub(rf"(?<!\w){re.escape(secret)}(?!\w)", _MASK, text)
    text = _AUTH_HEADER.sub(rf"\1\2{_MASK}", text)
    return _URL_USERINFO.sub(rf"\1{_MASK}@", text)


class _RedactingFormatter(logging.Formatter):
    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__(LOG_FORMAT)
        self.secrets = tuple(secrets)

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record), self.secrets)


class AppendHandler(logging.Handler):
    """Writes each record with one ``os.write`` to a file opened with ``O_APPEND`` (see module doc).

    Raises:
        OSError: the file cannot be opened (from the constructor).
    """

    def __init__(self, path: Path, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.path = path
        self.fd: int | None = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self.setFormatter(_RedactingFormatter(secrets))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            data = (self.format(record) + "\n").encode("utf-8", "replace")
            fd = self.fd
            if fd is None:
                return
            written = os.write(fd, data)
            while written < len(data):  # only on a full disk or a signal; keep the rest
                written += os.write(fd, data[written:])
        except Exception:
            self.handleError(record)

    def close(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)
        super().close()


class RaceLog:
    """The race log of the current process (see :func:`start_race_log`)."""

    def __init__(self, path: Path, handler: AppendHandler | None, restore: list[tuple[Any, int]]) -> None:
        self.path = path
        self._handler = handler
        self._restore = restore

    def finish(self, race: RaceResult | None = None) -> None:
        """Log the race's outcome and failures (if given) to the race log file only, and detach the
        log (idempotent).

        Only to the file: on the console the race's end is the report and the command's one
        ``[ERROR]`` line; a timestamped copy of the failure on stderr repeated it (issue 38).
        """
        if race is not None and self._handler is not None and self._handler.fd is not None:
            outcome = logging.getLogger(OUTCOME_LOGGER)
            outcome.propagate = False
            outcome.setLevel(logging.INFO)
            outcome.addHandler(self._handler)
            try:
                log_race_outcome(race, outcome)
            finally:
                outcome.removeHandler(self._handler)
        self.close()

    def discard(self) -> None:
        """Detach the log and delete the file (a race that measured nothing leaves nothing)."""
        self.close()
        with contextlib.suppress(OSError):
            self.path.unlink()

    def close(self) -> None:
        """Detach the handler and restore the logger levels it changed (idempotent)."""
        global _active
        root = logging.getLogger()
        if self._handler is not None:
            if self._handler in root.handlers:
                root.removeHandler(self._handler)
            self._handler.close()
        for target, level in self._restore:
            target.setLevel(level)
        self._restore = []
        if _active is self:
            _active = None


def _attach(path: Path, secrets: Iterable[str], level: int) -> RaceLog:
    global _active
    if _active is not None:
        _active.close()
    handler = AppendHandler(path, secrets)
    handler.setLevel(level)
    root = logging.getLogger()
    restore: list[tuple[Any, int]] = []
    if root.level > level:
        # Lowering the root level must not make the console noisier: handlers without their own
        # level keep showing what they showed before.
        for existing in root.handlers:
            if existing.level == logging.NOTSET:
                restore.append((existing, existing.level))
                existing.setLevel(root.level)
        restore.append((root, root.level))
        root.setLevel(level)
    root.addHandler(handler)
    _active = RaceLog(path, handler, restore)
    return _active


def start_race_log(race_dir: Path, secrets: Iterable[str]) -> RaceLog:
    """Start writing ``race_dir/esbench.log`` from this process (replaces an earlier race log).

    Args:
        race_dir: the race directory (exists).
        secrets: the strings to mask in every record
            (:func:`esbench.driver.transport.client.race_secrets` of the race's hosts and options).

    A file that cannot be created is a warning, not an error: the race runs without its log
    (the returned log is inert).
    """
    root_level = logging.getLogger().getEffectiveLevel()
    level = logging.DEBUG if root_level <= logging.DEBUG else logging.INFO
    try:
        log = _attach(race_dir / LOG_FILE_NAME, secrets, level)
    except OSError as e:
        # The race can run without its log; the user hears why there is none.
        logging.getLogger(__name__).warning("cannot write the race log in %s: %s", race_dir, e)
        return RaceLog(race_dir / LOG_FILE_NAME, None, [])
    logging.getLogger(__name__).info("race log of %s", race_dir.name)
    return log


def active_log_file() -> str | None:
    """The path of this process's race log (what workers should append to), or None."""
    return str(_active.path) if _active is not None else None


def attach_worker_log(path: str | None, credentials: Credentials | None = None) -> None:
    """In a load-driver worker process: append this process's log records to the race log.

    Does nothing without a path. The transport library's per-request INFO lines are kept out
    (plugin runners using the elasticsearch-py client would log every request).
    """
    if not path:
        return
    _attach(Path(path), secrets_of(credentials) if credentials is not None else (), logging.INFO)
    transport = logging.getLogger("elastic_transport")
    if transport.level == logging.NOTSET:
        transport.setLevel(logging.WARNING)


def log_race_outcome(race: RaceResult, logger: logging.Logger | None = None) -> None:
    """Write the race's status and each task's failures (top descriptions) to ``logger`` (default:
    this module's, which reaches every handler of the root logger)."""
    logger = logger or logging.getLogger(__name__)
    if race.error:
        logger.error("race %s %s: %s", race.race_id, race.status, race.error)
    else:
        logger.info("race %s %s", race.race_id, race.status)
    for task in race.tasks:
        if not task.error_count:
            continue
        logger.warning(
            "Task '%s': %d of %d measurement requests failed (%s)",
            task.task,
            task.error_count,
            task.sample_count,
            ", ".join(f"{k}: {v}" for k, v in task.errors_by_type.items()),
        )
        for d in task.error_descriptions[:SUMMARY_DESCRIPTIONS]:
            logger.warning("Task '%s': %d × %s", task.task, d.count, describe_line(d))
