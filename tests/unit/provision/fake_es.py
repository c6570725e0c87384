#!/usr/bin/python3
"""A stand-in for bin/elasticsearch (stdlib only: it runs as the unprivileged node account).

Behaviour is chosen by the file ``fake-mode`` in the distribution home:
ok | fail-launch | die-after-start | never-green | ignore-sigterm.
"""

import http.server
import json
import os
import signal
import socket
import sys
import time

HOME = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_settings(conf):
    settings = {}
    key = None
    with open(os.path.join(conf, "elasticsearch.yml")) as fh:
        for line in fh:
            if line.startswith("#") or not line.strip():
                continue
            if line.startswith("- ") and key:
                settings.setdefault(key, []).append(line[2:].strip())
                continue
            key, _, value = line.partition(":")
            key = key.strip()
            value = value.strip()
            if value:
                settings[key] = value.strip("'\"")
    return settings


def mode():
    try:
        with open(os.path.join(HOME, "fake-mode")) as fh:
            return fh.read().strip()
    except OSError:
        return "ok"


def server(marker, wfd):
    conf = os.environ["ES_PATH_CONF"]
    settings = read_settings(conf)
    pidfile = os.environ["FAKE_PIDFILE"]
    logs = settings["path.logs"]
    log = open(os.path.join(logs, settings["cluster.name"] + ".log"), "a")  # noqa: SIM115 (lives as long as the process)
    port = int(settings["http.port"])
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as e:
        msg = f"BindHttpException[Failed to bind to 127.0.0.1:{port}]; nested: BindException[{e}]"
        log.write(msg + "\n")
        log.close()
        os.write(wfd, msg.encode())
        sys.exit(1)
    sock.listen(16)
    with open(pidfile, "w") as fh:
        fh.write(str(os.getpid()))
    log.write("fake node started\n")
    log.flush()
    os.write(wfd, b"ok")
    os.close(wfd)
    m = mode()
    if m == "ignore-sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if m == "die-after-start":
        time.sleep(0.3)
        log.write("fatal error in thread [main], exiting: fake OutOfMemoryError\n")
        log.close()
        os._exit(3)
    nodes = len(settings.get("cluster.initial_master_nodes", [])) or 1
    status = "red" if m == "never-green" else "green"

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps({"status": status, "number_of_nodes": nodes}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    srv = http.server.HTTPServer(("127.0.0.1", port), Handler, bind_and_activate=False)
    srv.socket.close()
    srv.socket = sock
    srv.serve_forever()


def main():
    args = sys.argv[1:]
    if args and args[0] == "--server":
        server(args[1], int(args[2]))
        return
    if mode() == "fail-launch":
        print("ERROR: fake startup failure: unknown setting [foo.bar]")
        sys.exit(78)
    conf = os.environ["ES_PATH_CONF"]
    with open(os.path.join(conf, "jvm.options.d", "esbench.options")) as fh:
        marker = next(ln.strip() for ln in fh if ln.startswith("-Desbench.node="))
    pidfile = args[args.index("-p") + 1]
    r, w = os.pipe()
    os.set_inheritable(w, True)
    pid = os.fork()
    if pid == 0:
        os.setsid()
        os.close(r)
        os.environ["FAKE_PIDFILE"] = pidfile
        os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), "--server", marker, str(w)])
    os.close(w)
    chunks = []
    while True:
        chunk = os.read(r, 4096)
        if not chunk:
            break
        chunks.append(chunk)
        if b"ok" in chunk:
            break
    msg = b"".join(chunks).decode()
    if msg.startswith("ok"):
        sys.exit(0)
    print(msg or "fake node exited during start")
    sys.exit(1)


if __name__ == "__main__":
    main()
