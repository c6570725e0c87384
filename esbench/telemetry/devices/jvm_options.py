"""``jit``, ``gc``, ``jfr``: devices that instrument the JVM of every node esbench provisions.

Rally's devices of the same names (esrally ``telemetry.py``: ``JitCompiler``, ``Gc``,
``FlightRecorder``; attached by ``mechanic/launcher.py`` ``ProcessLauncher._start_node``, which
appends their ``instrument_java_opts`` to the node's ``ES_JAVA_OPTS``). esbench hands the options
to provisioning, which writes them into the node's ``jvm.options.d/esbench.options`` (race control
passes :func:`esbench.telemetry.race.node_java_options` as ``ProvisionSettings.node_java_options``;
provisioning does not import telemetry). The options depend on the node's JDK major version as
Rally decides it. Each device writes one file into the node's telemetry directory (``jit.log``,
``gc.log``, ``profile.jfr``, Rally's names), which esbench moves to
``<race dir>/telemetry/<node>/`` when it stops the node. They sample nothing and need no client.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

from esbench.telemetry.device import TelemetryDevice

#: Rally's default of ``gc-log-config`` (unified JVM logging, JDK 9+).
DEFAULT_GC_LOG_CONFIG = "gc*=info,safepoint=info,age*=trace"


class JitCompiler(TelemetryDevice):
    """Writes the JIT compiler's log to ``jit.log`` (Rally's ``jit``)."""

    name = "jit"
    human_name = "JIT Compiler Profiler"
    help = "Writes the JIT compiler log of provisioned nodes (jit.log)"
    needs_client = False
    provisioned_only = True

    def java_options(self, java_major: int, telemetry_dir: Path) -> tuple[str, ...]:
        """Rally's options: class-load tracing (``-XX:+TraceClassLoading`` before JDK 9, unified
        logging ``-Xlog:class+load=info`` from 9), ``-XX:+LogCompilation`` into ``jit.log`` and
        ``-XX:+PrintAssembly`` (which prints machine code only where the hsdis library is installed)."""
        class_loading = "-XX:+TraceClassLoading" if java_major < 9 else "-Xlog:class+load=info"
        return (
            "-XX:+UnlockDiagnosticVMOptions",
            class_loading,
            "-XX:+LogCompilation",
            f"-XX:LogFile={telemetry_dir / 'jit.log'}",
            "-XX:+PrintAssembly",
        )


class Gc(TelemetryDevice):
    """Writes the garbage collector's log to ``gc.log`` (Rally's ``gc``)."""

    name = "gc"
    human_name = "GC log"
    help = "Writes the garbage collection log of provisioned nodes (gc.log)"
    params: ClassVar[Mapping[str, object]] = {"gc-log-config": DEFAULT_GC_LOG_CONFIG}
    needs_client = False
    provisioned_only = True

    def __init__(self, params: Mapping[str, object]) -> None:
        super().__init__(params)
        self.log_config = self.optional_text("gc-log-config") or DEFAULT_GC_LOG_CONFIG

    def java_options(self, java_major: int, telemetry_dir: Path) -> tuple[str, ...]:
        """JDK 8: Rally's ``-Xloggc`` and ``-XX:+PrintGC*`` flags (``gc-log-config`` does not apply).
        JDK 9+: one unified-logging option, ``-Xlog:<gc-log-config>:file=<gc.log>:utctime,
        uptimemillis,level,tags:filecount=0`` (one file, never rotated)."""
        log_file = telemetry_dir / "gc.log"
        if java_major < 9:
            return (
                f"-Xloggc:{log_file}",
                "-XX:+PrintGCDetails",
                "-XX:+PrintGCDateStamps",
                "-XX:+PrintGCTimeStamps",
                "-XX:+PrintGCApplicationStoppedTime",
                "-XX:+PrintGCApplicationConcurrentTime",
                "-XX:+PrintTenuringDistribution",
            )
        return (f"-Xlog:{self.log_config}:file={log_file}:utctime,uptimemillis,level,tags:filecount=0",)


class FlightRecorder(TelemetryDevice):
    """Records the node with Java Flight Recorder into ``profile.jfr`` (Rally's ``jfr``)."""

    name = "jfr"
    human_name = "Flight Recorder"
    help = "Records provisioned nodes with Java Flight Recorder (profile.jfr; OpenJDK 11+ or Oracle JDK)"
    params: ClassVar[Mapping[str, object]] = {
        "recording-template": None,
        "jfr-delay": None,
        "jfr-duration": None,
    }
    needs_client = False
    provisioned_only = True

    def __init__(self, params: Mapping[str, object]) -> None:
        super().__init__(params)
        self.template = self.optional_text("recording-template")
        self.delay = self.optional_text("jfr-delay")
        self.duration = self.optional_text("jfr-duration")

    def java_options(self, java_major: int, telemetry_dir: Path) -> tuple[str, ...]:
        """Rally's options: the recording is dumped to ``profile.jfr`` when the JVM exits (esbench
        stops the node with SIGTERM, so it does), unbounded in size and age; ``jfr-delay``,
        ``jfr-duration`` and ``recording-template`` (a ``.jfc`` name or path: JFR's ``settings``)
        are appended as given. Before JDK 11 JFR is an Oracle commercial feature
        (``-XX:+UnlockCommercialFeatures``); before JDK 9 it is started with the old flags."""
        log_file = telemetry_dir / "profile.jfr"
        options = ["-XX:+UnlockDiagnosticVMOptions", "-XX:+DebugNonSafepoints"]
        if java_major < 11:
            options.append("-XX:+UnlockCommercialFeatures")
        if java_major < 9:
            options.append("-XX:+FlightRecorder")
            options.append(
                "-XX:FlightRecorderOptions=disk=true,maxage=0s,maxsize=0,dumponexit=true,"
                f"dumponexitpath={log_file}"
            )
            recording = "-XX:StartFlightRecording=defaultrecording=true"
        else:
            recording = (
                f"-XX:StartFlightRecording=maxsize=0,maxage=0s,disk=true,dumponexit=true,filename={log_file}"
            )
        for key, value in (("delay", self.delay), ("duration", self.duration), ("settings", self.template)):
            if value:
                recording += f",{key}={value}"
        options.append(recording)
        return tuple(options)
