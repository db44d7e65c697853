"""How the harness and a system's worker process speak, over the worker's stdin and stdout.

A message is one frame of UTF-8 JSON (an object), then one frame per float32 array the object lists under
`arrays` (`[{"name", "shape"}]`, in order). A frame is MAGIC, its length (unsigned 64-bit, big-endian), then
its bytes. Only JSON and raw float32 cross, so nothing one side reads can run code in the other.
"""

import json
import math
import struct
from collections.abc import Callable, Mapping
from typing import Any, BinaryIO

import numpy as np
from numpy.typing import NDArray

MAGIC = b"SFHW"
PREFIX = struct.Struct(">4sQ")
REQUEST_LIMIT = 8 << 30  # the corpus: every text and vector
REPLY_LIMIT = 64 << 20  # a worker's answer: a ranking, an identity, a list of parts

Reader = Callable[[int], bytes]  # exactly n bytes, or ChannelClosed


class WireError(Exception):
    """Bytes that are not a message of this protocol."""


class ChannelClosed(Exception):
    """The other side closed the channel."""


def encode(header: Mapping[str, Any], arrays: Mapping[str, NDArray[np.float32]] | None = None) -> bytes:
    arrays = arrays or {}
    listed = [{"name": name, "shape": list(array.shape)} for name, array in arrays.items()]
    frames = [json.dumps({**header, "arrays": listed}).encode("utf-8")]
    frames += [np.ascontiguousarray(array, dtype=np.float32).tobytes() for array in arrays.values()]
    return b"".join(PREFIX.pack(MAGIC, len(frame)) + frame for frame in frames)


def _frame(read: Reader, limit: int) -> bytes:
    magic, length = PREFIX.unpack(read(PREFIX.size))
    if magic != MAGIC:
        raise WireError(f"a frame starts with {magic!r}, not {MAGIC!r}")
    if length > limit:
        raise WireError(f"a frame of {length} bytes, beyond the {limit} this side accepts")
    return read(length)


def decode(read: Reader, limit: int) -> tuple[dict[str, Any], dict[str, NDArray[np.float32]]]:
    try:
        header = json.loads(_frame(read, limit).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise WireError(f"a message that is not UTF-8 JSON ({exc})") from exc
    listed = header.pop("arrays", None) if isinstance(header, dict) else None
    if not isinstance(header, dict) or not isinstance(listed, list):
        raise WireError("a message that is not a JSON object listing its arrays")
    arrays: dict[str, NDArray[np.float32]] = {}
    for entry in listed:
        try:
            name, shape = str(entry["name"]), tuple(int(n) for n in entry["shape"])
        except (KeyError, TypeError, ValueError) as exc:
            raise WireError(f"an array listed as {entry!r}") from exc
        data = _frame(read, limit)
        if len(data) != 4 * math.prod(shape):
            raise WireError(f"array {name!r} of shape {shape} arrived as {len(data)} bytes")
        arrays[name] = np.frombuffer(bytearray(data), dtype=np.float32).reshape(shape)
    return header, arrays


def stream_reader(stream: BinaryIO) -> Reader:
    """Blocking reads of exactly n bytes from a buffered stream (the worker's side)."""
    def read(size: int) -> bytes:
        data = stream.read(size)
        if len(data) < size:
            raise ChannelClosed(f"end of input after {len(data)} of {size} bytes")
        return data
    return read
