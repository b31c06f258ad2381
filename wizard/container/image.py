"""Provides image reuse: commit the finished container, save it as a `.tar.gz`, load it back.

Report, "镜像复用": the finished environment was shipped as
`pi-8.3.rc1-910b-ubuntu22.04-py3.10-20250228.tar.gz`, `docker load`-ed elsewhere and started with
the same `docker run` flags. Here: `container.commit()` to `pi:8.3.rc1-910b-ubuntu22.04-py3.10-<date>`,
`image.save()` streamed through gzip into a temporary file that is renamed into place when complete
(an interrupted save never leaves a truncated archive under the final name), and `images.load()`
from the archive (the engine accepts gzip-compressed archives as `docker load` does).
"""

from __future__ import annotations

import datetime as _dt
import gzip
import os
import time
from pathlib import Path
from typing import Callable, Iterator

import docker

from wizard.container.lifecycle import human_bytes

Emit = Callable[..., None]

#: gzip level for saved archives: 1 favours speed (tens of GB of CANN image) over a few % of size.
GZIP_LEVEL = 1
#: Bytes per chunk read from the engine or the archive.
CHUNK = 4 << 20


class ArchiveExists(FileExistsError):
    """The archive already exists and overwriting was not asked for (`--force`)."""


class Cancelled(Exception):
    """The operator cancelled a save or load part-way."""


def archive_names(archive, date: _dt.date | None = None) -> tuple[str, str, str]:
    """Repository, tag and file name of the reused image, from the recipe's `[archive]` table.

    `{date}` in the tag and file name becomes the date in `archive.date_format` (default `%Y%m%d`):
    ("pi", "8.3.rc1-910b-ubuntu22.04-py3.10-20250228", "pi-8.3.rc1-910b-ubuntu22.04-py3.10-20250228.tar.gz"),
    the report's names.
    """
    day = (date or _dt.date.today()).strftime(archive.date_format)
    return archive.repository, archive.tag.replace("{date}", day), archive.file.replace("{date}", day)


def commit_container(client: docker.DockerClient, container_name: str, repository: str, tag: str,
                     emit: Emit):
    """`docker commit NAME repository:tag`. Returns the Image.

    Raises:
        docker.errors.NotFound: no container of that name.
        docker.errors.APIError: the engine refused.
    """
    container = client.containers.get(container_name)
    emit(f"committing container {container_name} ({container.short_id}) to {repository}:{tag}")
    image = container.commit(repository=repository, tag=tag)
    emit(f"committed {repository}:{tag} ({image.short_id}, {human_bytes(int(image.attrs.get('Size') or 0))})")
    return image


def save_image(image, reference: str, dest: Path, emit: Emit, force: bool = False,
               cancelled: Callable[[], bool] = lambda: False, min_interval_s: float = 0.5) -> int:
    """Stream `docker save reference` through gzip into `dest`.

    Args:
        image: the docker Image to save.
        reference: the `repository:tag` recorded in the archive (so `load` restores the name).
        dest: the `.tar.gz` path.
        emit: line sink; progress lines (`progress=True`) give bytes read from the engine against
            the image size, and bytes written.
        force: overwrite an existing `dest`.
        cancelled: polled per chunk.

    Returns:
        Size of the archive in bytes.

    Raises:
        ArchiveExists: `dest` exists and `force` is False.
        Cancelled: the operator cancelled (the partial file is removed).
        docker.errors.APIError / OSError: engine or disk errors (the partial file is removed).
    """
    dest = Path(dest)
    if dest.exists() and not force:
        raise ArchiveExists(f"{dest} already exists; pass --force to overwrite it")
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".partial")
    expected = int(image.attrs.get("Size") or 0)
    read = 0
    last = 0.0
    emit(f"saving {reference} to {dest}")
    try:
        with open(partial, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw,
                                                        compresslevel=GZIP_LEVEL, mtime=0) as gz:
            for chunk in image.save(chunk_size=CHUNK, named=reference):
                if cancelled():
                    raise Cancelled("save cancelled")
                gz.write(chunk)
                read += len(chunk)
                now = time.monotonic()
                if now - last >= min_interval_s:
                    last = now
                    emit(_progress("saved", read, expected, raw.tell()), progress=True)
        os.replace(partial, dest)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    size = dest.stat().st_size
    emit(f"saved {human_bytes(read)} of image data as {human_bytes(size)} to {dest}")
    return size


def _progress(verb: str, done: int, total: int, written: int | None = None) -> str:
    pct = f" ({min(100, done * 100 // total)}%)" if total else ""
    tail = f", {human_bytes(written)} written" if written is not None else ""
    of = f" / {human_bytes(total)}" if total else ""
    return f"{verb} {human_bytes(done)}{of}{pct}{tail}"


def _read_chunks(path: Path, emit: Emit, cancelled: Callable[[], bool], min_interval_s: float) -> Iterator[bytes]:
    total = path.stat().st_size
    done = 0
    last = 0.0
    with open(path, "rb") as fh:
        while True:
            if cancelled():
                raise Cancelled("load cancelled")
            chunk = fh.read(CHUNK)
            if not chunk:
                break
            done += len(chunk)
            now = time.monotonic()
            if now - last >= min_interval_s or done == total:
                last = now
                emit(_progress("sent", done, total), progress=True)
            yield chunk


def load_archive(client: docker.DockerClient, path: Path, emit: Emit,
                 cancelled: Callable[[], bool] = lambda: False, min_interval_s: float = 0.5) -> list[str]:
    """`docker load -i path` (a `.tar` or `.tar.gz`), streaming the file with progress.

    Returns:
        The loaded image references (`pi:8.3.rc1-...`), or image ids when the archive held no name.

    Raises:
        FileNotFoundError: no such archive.
        docker.errors.APIError: the engine could not read it (not an image archive).
        Cancelled: the operator cancelled.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no image archive at {path}")
    emit(f"loading {path} ({human_bytes(path.stat().st_size)})")
    names: list[str] = []
    for event in client.api.load_image(_read_chunks(path, emit, cancelled, min_interval_s)):
        if "error" in event:
            raise docker.errors.APIError(str(event["error"]))
        text = str(event.get("stream") or "").strip()
        if text:
            emit(text)
        for prefix in ("Loaded image: ", "Loaded image ID: "):
            if text.startswith(prefix):
                names.append(text[len(prefix):].strip())
    if not names:
        raise docker.errors.APIError(f"{path}: the engine loaded nothing (is it an image archive?)")
    return names
