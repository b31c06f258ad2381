"""The resumable runfile download against a real local HTTP server (Range requests, like wget -c)."""

from __future__ import annotations

import hashlib
import http.server
import threading

import pytest
import requests

from wizard.download import download

PAYLOAD = bytes(range(256)) * 4096  # 1 MiB


class Handler(http.server.BaseHTTPRequestHandler):
    honour_range = True
    cut_after: int | None = None

    def log_message(self, *args):  # keep test output clean
        pass

    def do_GET(self):
        if self.path != "/CANN/CANN%208.3.RC1/file.run":
            self.send_error(404)
            return
        start = 0
        rng = self.headers.get("Range")
        if rng and self.honour_range:
            start = int(rng.split("=")[1].split("-")[0])
            if start >= len(PAYLOAD):
                self.send_response(416)
                self.end_headers()
                return
            self.send_response(206)
        else:
            self.send_response(200)
        body = PAYLOAD[start:]
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body if self.cut_after is None else body[: self.cut_after])


@pytest.fixture
def server():
    Handler.honour_range, Handler.cut_after = True, None
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_port}/CANN/CANN%208.3.RC1/file.run"
    srv.shutdown()
    srv.server_close()


def _run(url, dest, sha=None, cancelled=lambda: False):
    lines: list[str] = []
    code = download(url, dest, emit=lambda t, **k: lines.append(t), cancelled=cancelled, sha256=sha,
                    session=requests.Session())
    return code, lines


SHA = hashlib.sha256(PAYLOAD).hexdigest()


def test_full_download_with_checksum(server, tmp_path):
    dest = tmp_path / "dir with space" / "file.run"
    code, lines = _run(server, dest, SHA)
    assert code == 0 and dest.read_bytes() == PAYLOAD
    assert not dest.with_name("file.run.part").exists()
    assert lines[-1] == "file.run: sha256 ok"
    code, lines = _run(server, dest, SHA)  # already there: verified, not fetched again
    assert code == 0 and "already downloaded" in lines[0]


def test_resume_continues_a_partial_file(server, tmp_path):
    dest = tmp_path / "file.run"
    dest.with_name("file.run.part").write_bytes(PAYLOAD[:300_000])
    code, lines = _run(server, dest, SHA)
    assert code == 0 and dest.read_bytes() == PAYLOAD
    assert any("continuing at" in line for line in lines)


def test_server_without_range_restarts(server, tmp_path):
    Handler.honour_range = False
    dest = tmp_path / "file.run"
    dest.with_name("file.run.part").write_bytes(b"junk" * 10)
    code, lines = _run(server, dest)
    assert code == 0 and dest.read_bytes() == PAYLOAD
    assert any("does not resume" in line for line in lines)
    assert any("no published sha256" in line for line in lines)


def test_complete_part_file_gets_416_and_is_kept(server, tmp_path):
    dest = tmp_path / "file.run"
    dest.with_name("file.run.part").write_bytes(PAYLOAD)
    code, _ = _run(server, dest, SHA)
    assert code == 0 and dest.read_bytes() == PAYLOAD


def test_checksum_mismatch_fails(server, tmp_path):
    code, lines = _run(server, tmp_path / "file.run", "0" * 64)
    assert code == 1 and "sha256 is" in lines[-1] and "expected 000" in lines[-1]


def test_truncated_connection_keeps_the_part_for_next_time(server, tmp_path):
    Handler.cut_after = 100_000
    dest = tmp_path / "file.run"
    code, lines = _run(server, dest)
    assert code == 1 and not dest.exists()
    assert 0 < dest.with_name("file.run.part").stat().st_size <= 100_000
    assert lines[-1].endswith("run again to continue")
    Handler.cut_after = None
    assert _run(server, dest, SHA)[0] == 0


def test_http_error_and_cancel(server, tmp_path):
    code, lines = _run(server.replace("file.run", "missing.run"), tmp_path / "m.run")
    assert code == 1 and "HTTP 404" in lines[-1]
    code, lines = _run(server, tmp_path / "c.run", cancelled=lambda: True)
    assert code == 130 and "cancelled" in lines[-1]


def test_unreachable_host_is_a_line_not_a_traceback(tmp_path):
    code, lines = _run("http://127.0.0.1:9/x.run", tmp_path / "x.run")
    assert code == 1 and lines[-1].startswith("download failed: ConnectionError")
