"""Provides a resumable HTTPS download with progress and an optional sha256 check (`wget -c` style).

The report fetched the CANN runfiles with `wget -c URL`: a partial file is continued, not restarted.
Here the bytes go to `<dest>.part` and continue from its size with an HTTP `Range` request; only a
complete file is renamed to `dest`, so a file under the final name is always whole. TLS is always
verified (the report's `--no-check-certificate` is not carried over).
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Callable

import requests

#: Bytes read per chunk: small, so a dropped connection loses at most this much of what arrived.
CHUNK = 64 << 10
#: (connect, read) timeouts in seconds for each request.
TIMEOUT = (15.0, 60.0)
#: Seconds between two progress lines.
PROGRESS_INTERVAL_S = 0.5


class DownloadError(Exception):
    """The download could not complete; the message says why in one line."""


def human(n: float) -> str:
    """Bytes in binary units: 1536 -> "1.5 KiB"."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    return f"{n:.1f} GiB"  # pragma: no cover


def sha256_of(path: Path, cancelled: Callable[[], bool] = lambda: False) -> str | None:
    """Hex sha256 of a file, reading 64 KiB at a time; None when cancelled part-way."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            if cancelled():
                return None
            digest.update(chunk)
    return digest.hexdigest()


def download(url: str, dest: Path, emit: Callable[..., None], cancelled: Callable[[], bool],
             sha256: str | None = None, session: requests.Session | None = None) -> int:
    """Fetch `url` to `dest`, continuing a previous partial download.

    Args:
        url: https URL.
        dest: final file path; `<dest>.part` holds the bytes while downloading.
        emit: `emit(text, progress=False)` for one line of output.
        cancelled: polled between chunks; True stops the download (the .part file stays for resuming).
        sha256: expected lowercase hex digest of the complete file, or None (nothing to verify).
        session: a requests Session (tests pass one with a mounted adapter).

    Returns:
        0 on success, 1 on failure (reason emitted), 130 when cancelled.
    """
    try:
        return _download(url, dest, emit, cancelled, sha256, session or requests.Session())
    except DownloadError as exc:
        emit(f"download failed: {exc}")
        return 1
    except requests.RequestException as exc:
        part = Path(dest).with_name(Path(dest).name + ".part")
        again = "; run again to continue" if part.exists() and part.stat().st_size else ""
        emit(f"download failed: {type(exc).__name__}: {str(exc)[:300]}{again}")
        return 1
    except OSError as exc:
        emit(f"download failed: cannot write {dest}: {exc.strerror or exc}")
        return 1


def _verify(path: Path, sha256: str | None, emit: Callable[..., None], cancelled: Callable[[], bool]) -> int:
    if not sha256:
        emit(f"{path.name}: no published sha256 for this file; size and completeness only")
        return 0
    emit(f"{path.name}: checking sha256")
    got = sha256_of(path, cancelled)
    if got is None:
        return 130
    if got != sha256.lower():
        raise DownloadError(f"{path.name}: sha256 is {got}, expected {sha256} (the file is corrupt or not the"
                            f" published one; delete it and download again)")
    emit(f"{path.name}: sha256 ok")
    return 0


def _download(url: str, dest: Path, emit: Callable[..., None], cancelled: Callable[[], bool],
              sha256: str | None, session: requests.Session) -> int:
    dest = Path(dest)
    if dest.is_file():
        emit(f"{dest.name}: already downloaded ({human(dest.stat().st_size)})")
        return _verify(dest, sha256, emit, cancelled)
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    have = part.stat().st_size if part.exists() else 0
    headers = {"Range": f"bytes={have}-"} if have else {}
    with session.get(url, headers=headers, stream=True, timeout=TIMEOUT) as resp:
        if resp.status_code == 416 and have:
            # Range past the end: the .part already holds the whole file (wget -c says "fully retrieved").
            emit(f"{dest.name}: the partial file is already complete ({human(have)})")
            os.replace(part, dest)
            return _verify(dest, sha256, emit, cancelled)
        if resp.status_code not in (200, 206):
            raise DownloadError(f"{url}: HTTP {resp.status_code} {resp.reason or ''}".rstrip())
        if resp.status_code == 200 and have:
            emit(f"{dest.name}: the server does not resume; starting again from 0")
            have = 0
        length = resp.headers.get("Content-Length")
        total = have + int(length) if length and length.isdigit() else None
        emit(f"{dest.name}: {'continuing at ' + human(have) if have else 'starting'}"
             f"{' of ' + human(total) if total else ''}")
        mode = "ab" if have else "wb"
        got = have
        start = last = time.monotonic()
        with open(part, mode) as fh:
            for chunk in resp.iter_content(CHUNK):
                if cancelled():
                    emit(f"{dest.name}: cancelled at {human(got)}; run again to continue")
                    return 130
                fh.write(chunk)
                got += len(chunk)
                now = time.monotonic()
                if now - last >= PROGRESS_INTERVAL_S:
                    last = now
                    rate = (got - have) / max(now - start, 1e-6)
                    pct = f" ({100 * got / total:.1f}%)" if total else ""
                    emit(f"{dest.name}: {human(got)}{' / ' + human(total) if total else ''}{pct}"
                         f" {human(rate)}/s", progress=True)
    if total is not None and got != total:
        raise DownloadError(f"{dest.name}: connection ended at {human(got)} of {human(total)}; run again to continue")
    os.replace(part, dest)
    emit(f"{dest.name}: downloaded {human(got)}")
    return _verify(dest, sha256, emit, cancelled)
