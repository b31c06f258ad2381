"""Provides streaming reads of a v3.0 dataset's frames, one episode at a time, only the columns asked for.

Data files are `data/chunk-XXX/file-YYY.parquet` as named by the episodes metadata
(`meta/episodes/chunk-*/file-*.parquet`, columns `episode_index`, `data/chunk_index`,
`data/file_index`, `length`) and `info.json`'s `data_path` template. Rows of one episode are
contiguous (lerobot writes them in `index` order), possibly across row groups and files.
Memory held at once: the rows of the current episode plus one record batch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from wizard.dataset.layout import DatasetError, DatasetInfo, format_path

#: Rows per record batch read from parquet (bounded memory, few Python iterations).
BATCH_ROWS = 65536


@dataclass
class EpisodeIndex:
    """What the episodes metadata says: per episode its length and data file.

    Attributes:
        lengths: episode index -> number of frames (`length`).
        data_files: relative data file paths, in (chunk, file) order.
        video_files: relative video file paths named by the metadata (v3.0 `videos/<key>/...`).
    """

    lengths: dict[int, int] = field(default_factory=dict)
    data_files: list[str] = field(default_factory=list)
    video_files: list[str] = field(default_factory=list)


def _episode_meta_files(root: Path) -> list[Path]:
    return sorted((root / "meta" / "episodes").glob("chunk-*/file-*.parquet"))


def read_episode_index(root: Path, info: DatasetInfo, videos: bool = True) -> EpisodeIndex:
    """Read the v3.0 episodes metadata (only the columns needed).

    Args:
        root: the dataset folder.
        info: its `meta/info.json`.
        videos: also read the video file columns (for `video_files`); False leaves `video_files` empty.

    Raises:
        DatasetError: no episodes metadata, or a file that is not readable parquet (named),
            or without the columns lerobot writes.
    """
    root = Path(root)
    files = _episode_meta_files(root)
    if not files:
        raise DatasetError(f"{root / 'meta' / 'episodes'} holds no chunk-*/file-*.parquet (episodes metadata)")
    out = EpisodeIndex()
    data_refs: set[tuple[int, int]] = set()
    video_refs: set[str] = set()
    video_keys = info.video_keys if videos else []
    for path in files:
        try:
            pf = pq.ParquetFile(path)
            schema = pf.schema_arrow
            wanted = ["episode_index", "length", "data/chunk_index", "data/file_index"]
            missing = [c for c in wanted if c not in schema.names]
            if missing:
                raise DatasetError(f"{path} lacks the column(s) {', '.join(missing)}")
            vid_cols = [f"videos/{k}/{x}" for k in video_keys for x in ("chunk_index", "file_index")]
            vid_cols = [c for c in vid_cols if c in schema.names]
            table = pf.read(columns=wanted + vid_cols, use_threads=False)
        except DatasetError:
            raise
        except (OSError, pa.ArrowException) as exc:
            raise DatasetError(f"{path} is not a readable parquet file: {exc}") from exc
        not_int = [c for c in wanted if not pa.types.is_integer(table.column(c).type)]
        if not_int:
            raise DatasetError(f"{path}: column(s) {', '.join(not_int)} do not hold integers")
        if any(table.column(c).null_count for c in wanted):
            for c in wanted:
                if table.column(c).null_count:
                    i = int(np.flatnonzero(table.column(c).is_null().to_numpy(zero_copy_only=False))[0])
                    raise DatasetError(f"{path} row {i} has empty episode fields")
        eps, lengths, chunks, fidxs = (table.column(c).to_numpy() for c in wanted)
        out.lengths.update(zip(eps.tolist(), lengths.tolist()))
        data_refs.update(zip(chunks.tolist(), fidxs.tolist()))
        if info.video_path:
            for key in video_keys:
                names = (f"videos/{key}/chunk_index", f"videos/{key}/file_index")
                if not all(n in table.column_names for n in names):
                    continue
                c, f = table.column(names[0]), table.column(names[1])
                for ci, fi in set(zip(c.to_pylist(), f.to_pylist())):
                    if ci is not None and fi is not None:
                        video_refs.add(format_path(info.video_path, video_key=key, chunk_index=int(ci),
                                                   file_index=int(fi)))
    out.data_files = [format_path(info.data_path, chunk_index=c, file_index=f) for c, f in sorted(data_refs)]
    out.video_files = sorted(video_refs)
    return out


def column_matrix(arr: pa.Array, dim: int, where: str) -> tuple[np.ndarray | None, int]:
    """Turn one column's rows into an (n, dim) C-contiguous numpy matrix.

    Reads scalar columns, fixed-size lists and variable-length lists (the converter writes
    `list<float>`, the recorder `fixed_size_list<float>[D]`).

    Args:
        arr: the rows (a pyarrow Array).
        dim: the feature's width D from info.json.
        where: "feature in file" for messages.

    Returns:
        (matrix, 0), or (None, nulls) when the column holds null values.

    Raises:
        DatasetError: rows of another width than D, or a non-numeric column.
    """
    n = len(arr)
    t = arr.type
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        if arr.null_count:
            return None, arr.null_count
        if pa.types.is_fixed_size_list(t):
            if t.list_size != dim:
                raise DatasetError(f"{where}: rows hold {t.list_size} values, info.json says {dim}")
        elif n:
            lengths = pc.list_value_length(arr).to_numpy(zero_copy_only=False)
            if lengths.min() != dim or lengths.max() != dim:
                bad = int(np.flatnonzero(lengths != dim)[0])
                raise DatasetError(f"{where}: a row holds {int(lengths[bad])} values, info.json says {dim}")
        values = arr.flatten()
        if values.null_count:
            return None, values.null_count
        if not (pa.types.is_floating(values.type) or pa.types.is_integer(values.type)):
            raise DatasetError(f"{where}: values of type {values.type} are not numbers")
        return np.ascontiguousarray(values.to_numpy(zero_copy_only=False).reshape(n, dim)), 0
    if not (pa.types.is_floating(t) or pa.types.is_integer(t)):
        raise DatasetError(f"{where}: values of type {t} are not numbers")
    if dim != 1:
        raise DatasetError(f"{where}: a scalar column, but info.json says {dim} values per frame")
    if arr.null_count:
        return None, arr.null_count
    return np.ascontiguousarray(arr.to_numpy(zero_copy_only=False).reshape(n, 1)), 0


def open_parquet(path: Path, columns: list[str]) -> pq.ParquetFile:
    """Open a data file and check it has `columns`.

    Raises:
        DatasetError: missing, not parquet, or lacking a column (all named).
    """
    if not path.is_file():
        raise DatasetError(f"{path} is missing (the episodes metadata names it)")
    try:
        pf = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as exc:
        raise DatasetError(f"{path} is not a readable parquet file: {exc}") from exc
    missing = [c for c in columns if c not in pf.schema_arrow.names]
    if missing:
        raise DatasetError(f"{path} lacks the column(s) {', '.join(missing)}")
    return pf


def _batches(pf: pq.ParquetFile, columns: list[str]) -> Iterator[pa.RecordBatch]:
    """Record batches of a file: a whole row group at once when it is small, else `BATCH_ROWS` at a time."""
    meta = pf.metadata
    for rg in range(meta.num_row_groups):
        if meta.row_group(rg).num_rows <= 4 * BATCH_ROWS:
            table = pf.read_row_group(rg, columns=columns)
            if table.num_rows:
                yield table.combine_chunks().to_batches()[0]
        else:
            yield from pf.iter_batches(batch_size=BATCH_ROWS, row_groups=[rg], columns=columns)


def _file_batches(root: Path, files: list[str], columns: list[str]) -> Iterator[tuple[Path, pa.RecordBatch]]:
    """(path, record batch) of every data file in order; a missing or corrupt file raises `DatasetError` naming it."""
    for rel in files:
        path = Path(root) / rel
        pf = open_parquet(path, columns)
        try:
            for batch in _batches(pf, columns):
                yield path, batch
        except (OSError, pa.ArrowException) as exc:
            raise DatasetError(f"{path} is not a readable parquet file: {exc}") from exc


def iter_blocks(root: Path, files: list[str], columns: list[str]
                ) -> Iterator[tuple[list[int], np.ndarray, dict[str, pa.Array]]]:
    """Yield blocks of whole episodes: (episode indices, their lengths, column -> rows), in file order.

    A block is what one record batch completes: every episode whose last row has been read. The next
    batch is read before a block is yielded, so an episode is known to have ended when the next batch
    starts with another one (or there is none); an episode running on into the next batch or file is
    held back until it ends. A block holds at most about `BATCH_ROWS` rows plus the largest episode.

    Args:
        root: the dataset folder.
        files: relative data file paths, in order.
        columns: the columns wanted (besides `episode_index`, always read).

    Raises:
        DatasetError: a missing or corrupt file, a column missing, a null episode index, or an
            episode whose rows are not contiguous.
    """
    read_cols = list(dict.fromkeys([*columns, "episode_index"]))
    runs: list[list[int]] = []          # [episode, rows] of the rows held, in order
    held_eps: set[int] = set()          # the episodes in `runs`
    held: dict[str, list[pa.Array]] = {c: [] for c in columns}
    finished: set[int] = set()

    def flush(keep_last: bool):
        complete = runs[:-1] if keep_last else runs[:]
        if not complete:
            return None
        rows = sum(n for _, n in complete)
        block = {c: (parts[0] if len(parts) == 1 else pa.concat_arrays(parts)) for c, parts in held.items()}
        for c in columns:
            held[c] = [block[c].slice(rows)] if keep_last else []
        del runs[:len(complete)]
        done = [ep for ep, _ in complete]
        finished.update(done)
        held_eps.difference_update(done)
        return (done, np.array([n for _, n in complete], dtype=np.intp),
                {c: block[c].slice(0, rows) for c in columns})

    def episodes_of(path: Path, batch: pa.RecordBatch) -> np.ndarray:
        ep_col = batch.column("episode_index")
        if ep_col.null_count:
            raise DatasetError(f"{path}: episode_index has null values")
        return ep_col.to_numpy(zero_copy_only=False)

    stream = _file_batches(root, files, read_cols)
    current = next(stream, None)
    while current is not None:
        path, batch = current
        ep = episodes_of(path, batch)
        current = next(stream, None)
        if not len(ep):
            continue
        cuts = np.flatnonzero(ep[1:] != ep[:-1]) + 1
        bounds = [0, *cuts.tolist(), len(ep)]
        for s, e in zip(bounds[:-1], bounds[1:]):
            idx = int(ep[s])
            if runs and runs[-1][0] == idx:
                runs[-1][1] += e - s
                continue
            if idx in finished or idx in held_eps:
                raise DatasetError(f"{path}: rows of episode {idx} are not contiguous")
            runs.append([idx, e - s])
            held_eps.add(idx)
        for c in columns:
            held[c].append(batch.column(c))
        # the last episode goes on when the next non-empty batch starts with it
        following = None
        while current is not None:
            following = episodes_of(*current)
            if len(following):
                break
            current = next(stream, None)
        keep_last = current is not None and following is not None and int(following[0]) == runs[-1][0]
        out = flush(keep_last=keep_last)
        if out is not None:
            yield out
    out = flush(keep_last=False)
    if out is not None:
        yield out
