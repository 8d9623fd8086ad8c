"""A solve's arrays on disk as zstd frames: the checkpoints of :class:`FullSolver`.

A float32 solve of a real vira holds 4.3 GB of regrets and strategy sums, a 16-bit one
2.2 GB; about half the regrets are exactly zero (regret matching floors them) and the
rest vary little within a node, so zstd at its fastest level keeps a quarter to a third
of the bytes (vira 4's float32 solve at 0.001 points per hand: regrets 18 %, sums 31 %).

A file is the array's bytes in frames of :data:`FRAME` bytes, each compressed on its own
(the frames are compressed on several threads, and read back one at a time), then a JSON
footer (dtype, shape, the frames' compressed sizes and CRC-32s) and its length and
:data:`MAGIC`, so that a file cut short or damaged is refused, never misread.
"""

from __future__ import annotations

import json
import struct
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

MAGIC = b"LABZST01"
FRAME = 64 << 20
"""Raw bytes per frame."""
LEVEL = 1
"""zstd level: the fastest; higher levels took several times longer for a few percent."""
SUFFIX = ".zst"


class PackedError(ValueError):
    """A packed array file that is cut short, damaged or of another array."""


def _codec():
    import pyarrow as pa

    return pa.Codec("zstd", compression_level=LEVEL)


def save_array(path, arr: np.ndarray, threads: int = 1) -> int:
    """Write ``arr`` (contiguous) to ``path`` in zstd frames, compressed on ``threads``
    threads; returns the bytes written."""
    codec = _codec()
    raw = memoryview(np.ascontiguousarray(arr).reshape(-1).view(np.uint8))
    spans = [(a, min(a + FRAME, raw.nbytes)) for a in range(0, raw.nbytes, FRAME)]
    sizes, crcs = [], []
    with open(path, "wb") as fh, ThreadPoolExecutor(max(1, threads)) as pool:
        window = 2 * max(1, threads)   # frames in flight: bounded memory
        for w in range(0, len(spans), window):
            for frame in pool.map(lambda s: codec.compress(raw[s[0]:s[1]], asbytes=True),
                                  spans[w:w + window]):
                fh.write(frame)
                sizes.append(len(frame))
                crcs.append(zlib.crc32(frame))
        footer = json.dumps({"dtype": arr.dtype.str, "shape": list(arr.shape),
                             "frame": FRAME, "sizes": sizes, "crc32": crcs}).encode()
        fh.write(footer + struct.pack("<Q", len(footer)) + MAGIC)
        return fh.tell()


def load_array(path, out: np.ndarray) -> None:
    """Read the array of ``path`` into ``out`` (contiguous, of its dtype and shape);
    :class:`PackedError` if the file is cut short, damaged or of another array."""
    path = Path(path)
    codec = _codec()
    with open(path, "rb") as fh:
        fh.seek(0, 2)
        end = fh.tell()
        if end < 16:
            raise PackedError(f"{path}: cut short")
        fh.seek(end - 16)
        tail = fh.read(16)
        if tail[8:] != MAGIC:
            raise PackedError(f"{path}: cut short or not a packed array")
        (n,) = struct.unpack("<Q", tail[:8])
        if n > end - 16:
            raise PackedError(f"{path}: damaged footer")
        fh.seek(end - 16 - n)
        try:
            info = json.loads(fh.read(n))
            dtype, shape, frame, sizes, crcs = (
                np.dtype(info["dtype"]), tuple(info["shape"]), int(info["frame"]),
                [int(s) for s in info["sizes"]], [int(c) for c in info["crc32"]])
        except (ValueError, KeyError, TypeError) as exc:
            raise PackedError(f"{path}: damaged footer ({exc})") from None
        if dtype != out.dtype or shape != out.shape:
            raise PackedError(f"{path}: holds a {dtype} array of shape {shape}, expected "
                              f"{out.dtype} {out.shape}")
        if sum(sizes) != end - 16 - n or len(crcs) != len(sizes):
            raise PackedError(f"{path}: its frames do not fill it")
        dest = out.reshape(-1).view(np.uint8)
        fh.seek(0)
        at = 0
        for size, crc in zip(sizes, crcs):
            want = min(frame, dest.nbytes - at)
            data = fh.read(size)
            if zlib.crc32(data) != crc:
                raise PackedError(f"{path}: damaged frame (checksum)")
            try:
                block = codec.decompress(data, decompressed_size=want, asbytes=False)
            except OSError as exc:
                raise PackedError(f"{path}: damaged frame ({exc})") from None
            if block.size != want:
                raise PackedError(f"{path}: damaged frame")
            dest[at:at + want] = np.frombuffer(block, dtype=np.uint8)
            at += want
        if at != dest.nbytes:
            raise PackedError(f"{path}: holds {at} bytes, expected {dest.nbytes}")
