"""`pi05-wizard serve`: textual-serve puts the wizard in a browser (loopback only, bounded, always stopped)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

pytest.importorskip("textual_serve")
requests = pytest.importorskip("requests")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_serves_the_page_on_loopback(tmp_path):
    port = _free_port()
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    proc = subprocess.Popen([sys.executable, "-m", "wizard", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--state-dir", str(tmp_path / "wiz")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        deadline, page = time.monotonic() + 20, None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                page = requests.get(f"http://127.0.0.1:{port}/", timeout=2)
                break
            except requests.ConnectionError:
                time.sleep(0.2)
        assert page is not None, f"server never answered: {proc.stdout.read() if proc.poll() is not None else ''}"
        assert page.status_code == 200
        assert "pi05-wizard" in page.text  # the page title textual-serve is given
        assert "ws://" in page.text or "websocket" in page.text.lower()  # the terminal's socket URL
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # our own session: the server and nothing else
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
