"""The embedded default: a local Neo4j Community server assembled from Maven Central jars.

Two generations: the current Neo4j (:data:`CURRENT_VERSION`, 2026.x, the default a new home gets; Java 21 or 25)
and 5.26 LTS (:data:`LTS_VERSION`; Java 17 or 21), chosen by ``--neo4j`` / ``KGMEM_NEO4J_VERSION`` (``2026``,
``5.26``, or an exact Community version on Maven Central). A home keeps the version its data was created with
(recorded in its ``server.json``): asking another one for it is an error, never a silent store upgrade.

``fetch`` resolves org.neo4j:neo4j, org.neo4j:neo4j-bolt, org.neo4j.app:neo4j-server and
org.neo4j.client:neo4j-browser with ``mvn dependency:copy-dependencies`` into
``$KGMEM_CACHE/neo4j-<version>-<hash of the pom>/lib`` (once; reused while the pom is unchanged).
``start`` writes ``$KGMEM_HOME/neo4j/conf/neo4j.conf``, sets a generated initial password before the first
start, runs ``org.neo4j.server.CommunityEntryPoint`` as a normal background process bound to 127.0.0.1,
records its pid, and waits until Bolt answers. ``stop`` ends only the process named by that pid file.

Auth: on, with a random password generated at first start and kept in ``$KGMEM_HOME/neo4j/server.json``
(mode 0600). ``kgmem`` reads it from there when ``NEO4J_URI`` is not set; ``start`` prints it for other tools.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import cache_dir, kgmem_home, local_server_state_path
from ..errors import ServerError

CURRENT_VERSION = "2026.08.1"  # the newest Neo4j Community on Maven Central (checked 2026-12-01)
LTS_VERSION = "5.26.30"
NEO4J_VERSION = CURRENT_VERSION  # what a new home gets
# what --neo4j / KGMEM_NEO4J_VERSION accept besides an exact version
VERSION_ALIASES = {
    "current": CURRENT_VERSION,
    "latest": CURRENT_VERSION,
    "2026": CURRENT_VERSION,
    "lts": LTS_VERSION,
    "5": LTS_VERSION,
    "5.26": LTS_VERSION,
}
_EXACT_VERSION = re.compile(r"^(?:5\.\d+\.\d+|20\d\d\.\d\d\.\d+)$")
BROWSER_VERSION = "5.24.0"  # the newest neo4j-browser jar on Maven Central; 2026.x serves it too
ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"  # Neo4j 5.x's main class
ENTRY_POINT_2025 = "org.neo4j.server.Neo4jCommunity"  # 2025.x/2026.x (no CommunityEntryPoint any more)
ENTRY_POINTS = (ENTRY_POINT, ENTRY_POINT_2025)


def entry_point(lib: Path) -> str:
    """The server's main class in the jars of ``lib`` (what ``neo4j console --dry-run`` runs)."""
    import zipfile

    for jar in sorted(lib.glob("neo4j-[0-9]*.jar")) + sorted(lib.glob("neo4j-server-*.jar")):
        try:
            with zipfile.ZipFile(jar) as z:
                if "org/neo4j/server/Neo4jCommunity.class" in z.namelist():
                    return ENTRY_POINT_2025
        except (OSError, zipfile.BadZipFile):
            continue
    return ENTRY_POINT


def resolve_version(spec: str | None) -> str:
    """An exact Neo4j version from ``--neo4j`` / ``KGMEM_NEO4J_VERSION`` (None or empty: the current one)."""
    if not spec:
        return CURRENT_VERSION
    spec = spec.strip().lower()
    if spec in VERSION_ALIASES:
        return VERSION_ALIASES[spec]
    if _EXACT_VERSION.match(spec):
        return spec
    raise ServerError(
        f"'{spec}' is not a Neo4j version kgmem can run",
        fix=f"use 2026 (Neo4j {CURRENT_VERSION}, the default), 5.26 (Neo4j {LTS_VERSION} LTS) or an exact "
        "Community version such as 2026.08.1",
    )


def version_key(version: str) -> tuple[int, ...]:
    """'2026.08.1' -> (2026, 8, 1); '5.26.30' -> (5, 26, 30); a suffix such as '-aura' is ignored."""
    return tuple(int(p) for p in re.findall(r"\d+", version.split("-")[0])[:3])


def supported_java(version: str) -> tuple[int, ...]:
    """The Java majors a Neo4j version runs on: 5.x 17 and 21; 2025.01+ 21; 2025.10+ 21 and 25."""
    key = version_key(version)
    if key[0] < 2025:
        return (17, 21)
    if key < (2025, 10):
        return (21,)
    return (21, 25)


POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kgmem</groupId>
  <artifactId>kgmem-neo4j-dist</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.neo4j</groupId><artifactId>neo4j</artifactId><version>{neo4j}</version></dependency>
    <dependency><groupId>org.neo4j</groupId><artifactId>neo4j-bolt</artifactId><version>{neo4j}</version></dependency>
    <dependency><groupId>org.neo4j.app</groupId><artifactId>neo4j-server</artifactId><version>{neo4j}</version></dependency>
    <dependency><groupId>org.neo4j.client</groupId><artifactId>neo4j-browser</artifactId><version>{browser}</version></dependency>
  </dependencies>
</project>
"""

JVM_FLAGS = [
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+AlwaysPreTouch",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-XX:FlightRecorderOptions=stackdepth=256",
    "-XX:+UnlockDiagnosticVMOptions",
    "-XX:+DebugNonSafepoints",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    # Lucene's SIMD vector distances (the vector indexes); without it Neo4j warns "Java vector incubator
    # module is not readable" and scores every candidate in scalar code
    "--add-modules=jdk.incubator.vector",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
]


@dataclass
class ServerSettings:
    """What ``start`` runs. Every field can come from the environment (see ``from_env``)."""

    bolt_port: int = 7687
    http_port: int = 7474
    heap: str = "1g"
    pagecache: str = "1g"
    # Lucene segments a vector index lets pile up per size level before merging them (Neo4j's default is 50:
    # cheap writes, but a search visits every segment's HNSW graph, so after many small transactions it
    # costs up to ~50 graph searches; see `kgmem bench --suite scale`)
    vector_merge_factor: int = 10
    home: Path = field(default_factory=lambda: kgmem_home() / "neo4j")
    neo4j: str = CURRENT_VERSION  # the exact version to run (a home's recorded version wins unless asked)
    start_timeout: float = 180.0
    # the ports the caller asked for (option or KGMEM_*_PORT); the others are defaults, and a running server
    # of this home keeps the ports it was started with
    explicit_ports: frozenset[str] = frozenset()
    explicit_version: bool = False  # --neo4j or KGMEM_NEO4J_VERSION was given

    @classmethod
    def from_env(cls, **overrides: int | str | None) -> ServerSettings:
        env = os.environ
        s = cls(
            bolt_port=int(env.get("KGMEM_BOLT_PORT", 7687)),
            http_port=int(env.get("KGMEM_HTTP_PORT", 7474)),
            heap=env.get("KGMEM_NEO4J_HEAP", "1g"),
            pagecache=env.get("KGMEM_NEO4J_PAGECACHE", "1g"),
            vector_merge_factor=_positive_int(env, "KGMEM_NEO4J_VECTOR_MERGE_FACTOR", 10),
            neo4j=resolve_version(env.get("KGMEM_NEO4J_VERSION")),
            explicit_version=bool(env.get("KGMEM_NEO4J_VERSION")),
        )
        explicit = {
            k for k, var in (("bolt_port", "KGMEM_BOLT_PORT"), ("http_port", "KGMEM_HTTP_PORT")) if env.get(var)
        }
        for k, v in overrides.items():
            if v is not None:
                if k == "neo4j":
                    v = resolve_version(str(v))
                    s.explicit_version = True
                setattr(s, k, v)
                if k in ("bolt_port", "http_port"):
                    explicit.add(k)
        s.explicit_ports = frozenset(explicit)
        return s

    @property
    def pid_file(self) -> Path:
        return self.home / "run" / "neo4j.pid"

    @property
    def log_file(self) -> Path:
        return self.home / "logs" / "console.log"

    @property
    def data_dir(self) -> Path:
        return self.home / "data"

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"


# ---------------------------------------------------------------- fetching the jars


def distribution_dir(version: str = CURRENT_VERSION) -> Path:
    pom = POM.format(neo4j=version, browser=BROWSER_VERSION)
    key = hashlib.sha256(pom.encode()).hexdigest()[:12]
    return cache_dir() / f"neo4j-{version}-{key}"


def fetch(quiet: bool = False, version: str = CURRENT_VERSION) -> Path:
    """Resolve the jars of Neo4j ``version`` into the cache (once) and return the distribution directory."""
    dist = distribution_dir(version)
    if (dist / ".complete").exists():
        return dist
    mvn = shutil.which("mvn")
    if not mvn:
        raise ServerError(
            "Maven ('mvn') is needed once to fetch Neo4j from Maven Central",
            fix="install it (apt install maven), or run Neo4j yourself and set NEO4J_URI",
        )
    dist.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=dist.name + ".", dir=dist.parent))
    try:
        (tmp / "pom.xml").write_text(POM.format(neo4j=version, browser=BROWSER_VERSION))
        cmd = [
            mvn,
            "-B",
            "-q",
            "-f",
            str(tmp / "pom.xml"),
            "dependency:copy-dependencies",
            "-DincludeScope=runtime",
            f"-DoutputDirectory={tmp / 'lib'}",
        ]
        if not quiet:
            print(f"kgmem: fetching Neo4j {version} jars from Maven Central into {dist} (once)", file=sys.stderr)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
            raise ServerError(
                f"mvn could not fetch Neo4j {version}:\n{tail}",
                fix="check that Maven Central is reachable (or ~/.m2 holds the artifacts) and retry",
            )
        if not any((tmp / "lib").glob(f"neo4j-server-{version}.jar")):
            raise ServerError(
                f"mvn finished but neo4j-server-{version}.jar is missing from {tmp / 'lib'}",
                fix="run kgmem server start again (the download is retried)",
            )
        (tmp / ".complete").write_text(version + "\n")
        if dist.exists():
            shutil.rmtree(dist)
        tmp.rename(dist)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return dist


# ---------------------------------------------------------------- java


def _java_major(java: str) -> int | None:
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30).stderr
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    if not m:
        return None
    major = int(m.group(1))
    return int(m.group(2)) if major == 1 and m.group(2) else major


def find_java(version: str = CURRENT_VERSION, jvm_root: Path = Path("/usr/lib/jvm")) -> str:
    """A Java runtime Neo4j ``version`` runs on (:func:`supported_java`): the first of JAVA_HOME, the ``java`` on
    PATH, then ``jvm_root``/* whose major version fits."""
    wanted = supported_java(version)
    candidates: list[str] = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(str(Path(os.environ["JAVA_HOME"]) / "bin" / "java"))
    on_path = shutil.which("java")
    if on_path:
        candidates.append(on_path)
    for jvm in sorted(jvm_root.glob("*")) if jvm_root.exists() else []:
        candidates.append(str(jvm / "bin" / "java"))
    seen = []
    for c in candidates:
        if c in seen or not Path(c).exists():
            continue
        seen.append(c)
        if _java_major(c) in wanted:
            return c
    found = ", ".join(f"{c} (Java {_java_major(c)})" for c in seen) or "none"
    need = " or ".join(map(str, wanted))
    other = (
        f", or run Neo4j {LTS_VERSION} LTS on Java 17 (`kgmem server start --neo4j 5.26`)" if 17 not in wanted else ""
    )
    raise ServerError(
        f"Neo4j {version} needs Java {need}; found: {found}",
        fix=f"install one (apt install openjdk-{wanted[0]}-jre-headless, or a Temurin {wanted[-1]} JDK) and set "
        f"JAVA_HOME to it{other}",
    )


# ---------------------------------------------------------------- process control


def _read_state() -> dict[str, Any]:
    p = local_server_state_path()
    if p.exists():
        try:
            state: dict[str, Any] = json.loads(p.read_text())
            return state
        except ValueError:
            return {}
    return {}


def _write_state(state: dict[str, Any]) -> None:
    p = local_server_state_path()
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=2, sort_keys=True) + "\n")
    os.chmod(tmp, 0o600)
    tmp.replace(p)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie child of ours is not alive
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def _is_our_server(pid: int, settings: ServerSettings) -> bool:
    """True when ``pid`` is a Neo4j entry point running on this home directory (not a reused pid)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return _pid_alive(pid)  # no /proc (macOS): trust the pid file
    args = [a.decode(errors="replace") for a in cmdline]
    return any(e in args for e in ENTRY_POINTS) and f"--home-dir={settings.home}" in args


def running_pid(settings: ServerSettings) -> int | None:
    try:
        pid = int(settings.pid_file.read_text().strip())
    except (OSError, ValueError):
        return None
    if _pid_alive(pid) and _is_our_server(pid, settings):
        return pid
    return None


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _bolt_answers(settings: ServerSettings, password: str | None, timeout: float = 2.0) -> bool:
    """Bolt accepts our credentials (through the store, the one place that talks to the driver)."""
    from ..config import Connection
    from ..errors import KgmemError
    from ..store import Store

    try:
        with Store(
            Connection(settings.uri, "neo4j", password or "", origin="local-server"), connection_timeout=timeout
        ) as store:
            store.verify()
        return True
    except KgmemError:
        return False


def _write_conf(settings: ServerSettings) -> Path:
    conf_dir = settings.home / "conf"
    conf_dir.mkdir(parents=True, exist_ok=True)
    lines = [
        "# written by `kgmem server start`; edits are overwritten on the next start",
        "server.default_listen_address=127.0.0.1",
        "server.default_advertised_address=127.0.0.1",
        f"server.bolt.listen_address=127.0.0.1:{settings.bolt_port}",
        f"server.bolt.advertised_address=127.0.0.1:{settings.bolt_port}",
        f"server.http.listen_address=127.0.0.1:{settings.http_port}",
        f"server.http.advertised_address=127.0.0.1:{settings.http_port}",
        "server.https.enabled=false",
        "server.bolt.tls_level=DISABLED",
        f"server.memory.heap.initial_size={settings.heap}",
        f"server.memory.heap.max_size={settings.heap}",
        f"server.memory.pagecache.size={settings.pagecache}",
        f"server.directories.data={settings.data_dir}",
        f"server.directories.logs={settings.home / 'logs'}",
        f"server.directories.run={settings.home / 'run'}",
        f"server.directories.import={settings.home / 'import'}",
        "dbms.security.auth_enabled=true",
        "dbms.usage_report.enabled=false",
        "db.tx_log.rotation.retention_policy=1 days",
        # a log file grows as it is written instead of starting at its rotation size (256 MB; two of them, the
        # system database's and neo4j's, on a new home)
        "db.tx_log.preallocate=false",
        "server.logs.gc.enabled=false",
        # an internal setting of 5.26 and 2026.x alike (LuceneSettings, default 50); Neo4j refuses unknown
        # settings, so a version without it would not start: the test suite runs on servers of both
        f"internal.dbms.index.vector.standard_merge_factor={settings.vector_merge_factor}",
        "",
    ]
    conf = conf_dir / "neo4j.conf"
    conf.write_text("\n".join(lines))
    return conf


def _positive_int(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 2:
        raise ServerError(f"{name}={raw!r} is not a whole number of at least 2", fix=f"unset {name} or set e.g. 10")
    return value


def _heap_flag(size: str) -> str:
    m = re.fullmatch(r"(\d+)\s*([kKmMgG]?)[bB]?", size.strip())
    if not m:
        raise ServerError(f"heap size '{size}' is not a size", fix="use a value like 512m or 1g")
    return m.group(1) + m.group(2).lower()


def start(settings: ServerSettings | None = None, *, quiet: bool = False) -> dict[str, Any]:
    """Start the local server if it is not running; wait until Bolt answers. Idempotent."""
    settings = settings or ServerSettings.from_env()
    state = _read_state()
    pid = running_pid(settings)
    if pid is not None:
        settings = _running_settings(settings, state, pid)
        if state.get("password") and _bolt_answers(settings, state["password"], timeout=5):
            return {**status(settings), "already_running": True}
        # started but not ready yet (another start in progress): wait for it
        _wait_ready(settings, state.get("password"), pid, time.monotonic() + settings.start_timeout)
        return {**status(settings), "already_running": True}

    t0 = time.monotonic()
    settings = _recorded_ports(settings, state)  # a home keeps the ports it last ran on unless asked for others
    for name, port in (("Bolt", settings.bolt_port), ("HTTP", settings.http_port)):
        if not _port_free(port):
            flag = "--bolt-port" if name == "Bolt" else "--http-port"
            raise ServerError(
                f"port {port} ({name}) on 127.0.0.1 is already taken by another process",
                fix=f"stop that process, or choose another port with `kgmem server start {flag} N`",
            )
    password = state.get("password") if state.get("home") == str(settings.home) else None
    first_start = (
        not (settings.data_dir / "dbms" / "auth.ini").exists()
        and not (settings.data_dir / "databases" / "system").exists()
    )
    settings = _home_version(settings, None if first_start else state)
    java = find_java(settings.neo4j)
    dist = fetch(quiet=quiet, version=settings.neo4j)
    for sub in ("data", "logs", "run", "import", "plugins"):
        (settings.home / sub).mkdir(parents=True, exist_ok=True)
    _write_conf(settings)
    lib = settings.home / "lib"
    if lib.is_symlink() or lib.exists():
        if not lib.is_symlink() or os.readlink(lib) != str(dist / "lib"):
            if lib.is_symlink():
                lib.unlink()
            else:
                shutil.rmtree(lib)
    if not lib.exists():
        lib.symlink_to(dist / "lib")

    if first_start:
        password = new_password()
        _run_admin(java, settings, ["dbms", "set-initial-password", password])
    elif not password:
        raise ServerError(
            f"the data directory {settings.data_dir} exists but its password is not in {local_server_state_path()}",
            fix=f"set NEO4J_PASSWORD and NEO4J_URI yourself, or remove {settings.data_dir} to start afresh",
        )

    cmd = [
        java,
        "-cp",
        f"{settings.home / 'conf'}/*:{lib}/*",
        f"-Xms{_heap_flag(settings.heap)}",
        f"-Xmx{_heap_flag(settings.heap)}",
        *JVM_FLAGS,
        # Java 23+ warns (24+: refuses by default) when sun.misc.Unsafe memory access is used; Neo4j's launcher
        # allows it there, and so do we
        *(["--sun-misc-unsafe-memory-access=allow"] if (_java_major(java) or 0) >= 23 else []),
        entry_point(dist / "lib"),
        f"--home-dir={settings.home}",
        f"--config-dir={settings.home / 'conf'}",
        "--console-mode",
    ]
    env = {**os.environ, "NEO4J_HOME": str(settings.home), "NEO4J_CONF": str(settings.home / "conf")}
    settings.log_file.parent.mkdir(parents=True, exist_ok=True)
    with open(settings.log_file, "ab") as log:
        log.write(f"\n==== kgmem server start {time.strftime('%Y-%m-%dT%H:%M:%S')} ====\n".encode())
        log.flush()
        proc = subprocess.Popen(
            cmd,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=settings.home,
            env=env,
            start_new_session=True,
        )
    settings.pid_file.write_text(f"{proc.pid}\n")
    _write_state(
        {
            "uri": settings.uri,
            "user": "neo4j",
            "password": password,
            "home": str(settings.home),
            "bolt_port": settings.bolt_port,
            "http_port": settings.http_port,
            "version": settings.neo4j,
            "java": java,
            "heap": settings.heap,
            "pagecache": settings.pagecache,
        }
    )
    _wait_ready(settings, password, proc.pid, t0 + settings.start_timeout)
    return {**status(settings), "already_running": False, "start_seconds": round(time.monotonic() - t0, 2)}


def _home_version(settings: ServerSettings, state: dict[str, Any] | None) -> ServerSettings:
    """The version to run on a home whose data exists (``state``: its server.json; None for a new home): the
    version it was created with. Asking for another generation is an error (a store upgrade is one-way)."""
    if not state or state.get("home") != str(settings.home) or not state.get("version"):
        return settings
    recorded = str(state["version"])
    if not settings.explicit_version:
        return dataclasses.replace(settings, neo4j=recorded)
    if version_key(settings.neo4j)[:2] == version_key(recorded)[:2] or (
        version_key(recorded)[0] >= 2025 and version_key(settings.neo4j) >= version_key(recorded)
    ):
        return settings  # a patch release of the same line, or a newer calendar release
    raise ServerError(
        f"the data in {settings.data_dir} was created by Neo4j {recorded}; this start asks for {settings.neo4j}",
        fix=f"start it as it is (`kgmem server start --neo4j {recorded}`, or without --neo4j/KGMEM_NEO4J_VERSION), "
        "or give the other version its own home (KGMEM_HOME=... with other ports)",
    )


def _recorded_ports(settings: ServerSettings, state: dict[str, Any]) -> ServerSettings:
    """``settings`` with this home's recorded ports (its ``server.json``: the ports it last ran on) for the ports
    not asked for (option or ``KGMEM_*_PORT``): a home started on 7730 starts there again, and says so when
    stopped."""
    if state.get("home") != str(settings.home):
        return settings
    bolt, http = state.get("bolt_port"), state.get("http_port")
    return dataclasses.replace(
        settings,
        bolt_port=int(bolt)
        if isinstance(bolt, int) and "bolt_port" not in settings.explicit_ports
        else settings.bolt_port,
        http_port=int(http)
        if isinstance(http, int) and "http_port" not in settings.explicit_ports
        else settings.http_port,
    )


def _running_settings(settings: ServerSettings, state: dict[str, Any], pid: int) -> ServerSettings:
    """The settings of the server of this home that already runs (pid ``pid``): its ports come from its state
    file. Ports asked for explicitly that differ from them are an error at once (one server per home)."""
    bolt_port, http_port = state.get("bolt_port"), state.get("http_port")
    if state.get("home") not in (None, str(settings.home)) or bolt_port is None or http_port is None:
        return settings  # no usable record of its ports: keep what was asked
    running = {"bolt_port": bolt_port, "http_port": http_port}
    label = {"bolt_port": "Bolt", "http_port": "HTTP"}
    clash = [
        f"{label[k]} {getattr(settings, k)}"
        for k in sorted(settings.explicit_ports)
        if getattr(settings, k) != running[k]
    ]
    if clash:
        raise ServerError(
            f"the server of {settings.home} already runs (pid {pid}) with Bolt on {running['bolt_port']} and HTTP "
            f"on {running['http_port']} (asked: {', '.join(clash)})",
            fix="use it as it is (`kgmem server start` without ports, or `kgmem server status`), or run "
            "`kgmem server stop` first and start it again on the new ports",
        )
    version = state.get("version") or settings.neo4j
    if settings.explicit_version and version_key(version)[:2] != version_key(settings.neo4j)[:2]:
        raise ServerError(
            f"the server of {settings.home} already runs Neo4j {version} (pid {pid}); asked: {settings.neo4j}",
            fix="use it as it is, or give the other version its own home (KGMEM_HOME=... with other ports)",
        )
    return dataclasses.replace(settings, bolt_port=int(bolt_port), http_port=int(http_port), neo4j=version)


def _wait_ready(settings: ServerSettings, password: str | None, pid: int, deadline: float) -> None:
    while time.monotonic() < deadline:
        if not _pid_alive(pid):
            raise ServerError(
                f"Neo4j exited during start-up; last lines of {settings.log_file}:\n{tail_log(settings, 25)}",
                fix="fix the cause above (memory, ports, Java), then run `kgmem server start` again",
            )
        if _bolt_answers(settings, password, timeout=2):
            return
        time.sleep(0.5)
    raise ServerError(
        f"Neo4j did not answer on {settings.uri} within {settings.start_timeout:.0f}s; see {settings.log_file}",
        fix="check `kgmem server logs`",
    )


def new_password() -> str:
    """A random initial password that neo4j-admin reads as a value: hex never begins with '-' (one
    ``token_urlsafe`` in 64 did, and neo4j-admin took it for an unknown option and printed its usage)."""
    return secrets.token_hex(18)


def _run_admin(java: str, settings: ServerSettings, args: list[str]) -> None:
    cmd = [
        java,
        "-cp",
        f"{settings.home / 'conf'}/*:{settings.home / 'lib'}/*",
        "org.neo4j.server.startup.Neo4jAdminCommand",
        *args,
    ]
    env = {**os.environ, "NEO4J_HOME": str(settings.home), "NEO4J_CONF": str(settings.home / "conf")}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=settings.home)
    if proc.returncode != 0:
        out = (proc.stderr + proc.stdout).strip()  # the reason is on the first lines, the usage after it
        raise ServerError(
            f"neo4j-admin {' '.join(args[:2])} failed: {out if len(out) <= 800 else out[:800] + ' …'}",
            fix="see the reason above; kgmem server logs shows the server's log",
        )


def stop(settings: ServerSettings | None = None, timeout: float = 60.0) -> dict[str, Any]:
    """Stop the server this pid file names. Leaves any other Neo4j alone."""
    settings = settings or ServerSettings.from_env()
    pid = running_pid(settings)
    if pid is None:
        settings.pid_file.unlink(missing_ok=True)
        return {**status(settings), "was_running": False}
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and _pid_alive(pid):
        time.sleep(0.25)
        try:  # reap if it is our child
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
    if _pid_alive(pid):
        os.kill(pid, signal.SIGKILL)
    settings.pid_file.unlink(missing_ok=True)
    return {**status(settings), "was_running": True}


def status(settings: ServerSettings | None = None) -> dict[str, Any]:
    settings = settings or ServerSettings.from_env()
    state = _read_state()
    pid = running_pid(settings)
    if pid:  # the running server's ports, whatever was asked
        bolt, http = state.get("bolt_port", settings.bolt_port), state.get("http_port", settings.http_port)
    else:  # the ports a start would use: asked for, else the ones this home last ran on, else the defaults
        recorded = _recorded_ports(settings, state)
        bolt, http = recorded.bolt_port, recorded.http_port
    ours = state.get("home") == str(settings.home) and (settings.data_dir / "databases").exists()
    version = (state.get("version") if ours else None) or settings.neo4j  # a home's data keeps its version
    return {
        "state": "running" if pid else "stopped",
        "pid": pid,
        "bolt_port": bolt,
        "http_port": http,
        "uri": f"bolt://127.0.0.1:{bolt}",
        "browser": f"http://127.0.0.1:{http}/browser/",
        "version": version,
        "java_versions": list(supported_java(version)),
        "data_dir": str(settings.data_dir),
        "home": str(settings.home),
        "log": str(settings.log_file),
        "jars": str(distribution_dir(version) / "lib"),
    }


def env_lines(info: dict[str, Any] | None = None) -> list[str]:
    """``export NEO4J_URI=…`` lines for the server ``info`` describes (default: this home's), quoted for a
    POSIX shell: ``eval "$(kgmem server start)"`` sets them for the programs the shell runs."""
    import shlex

    state = _read_state()
    info = info or status()
    values = {
        "NEO4J_URI": info["uri"],
        "NEO4J_USERNAME": state.get("user", "neo4j"),
        "NEO4J_PASSWORD": state.get("password", ""),
    }
    return [f"export {name}={shlex.quote(str(value))}" for name, value in values.items()]


def tail_log(settings: ServerSettings | None = None, lines: int = 50) -> str:
    settings = settings or ServerSettings.from_env()
    out = []
    for p in (settings.log_file, settings.home / "logs" / "neo4j.log"):
        if p.exists() and p.stat().st_size:
            with open(p, "rb") as f:
                f.seek(0, os.SEEK_END)
                size = f.tell()
                f.seek(max(0, size - 200_000))
                text = f.read().decode(errors="replace").splitlines()[-lines:]
            out.append(f"==> {p} <==\n" + "\n".join(text))
            break
    return "\n".join(out) or f"(no log yet at {settings.log_file})"
