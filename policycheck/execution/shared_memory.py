"""Objects a process pool's workers read in place: large inputs travel once per worker, not once per item.

When the items of a map are tuples and one large object (the same object, by
identity) appears in several of them, it goes into a shared-memory segment
and every task gets a handle of a few bytes (:func:`share_repeated`); a
worker maps the segment once per map call (:func:`resolve_shared`).
"""

from __future__ import annotations

import mmap
import os
import pickle
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: Objects smaller than this are sent with every item that holds them.
SHARE_MIN_BYTES = 1 << 16

#: Arrays smaller than this are made in private memory by ``empty()``: copied into shared memory
#: they cost under a millisecond, less than a segment of their own (and a step this small
#: usually runs in this process).
EMPTY_SHARED_MIN_BYTES = 1 << 22


def share_repeated(items: list[Any], share: Callable[[Any], Any], threads: int = 1) -> list[Any]:
    """Replace every large object found (by identity) in several tuple items by ``share(obj)``.

    Items that are not tuples, and objects below :data:`SHARE_MIN_BYTES`,
    are left as they are. ``threads`` > 1 shares the objects side by side.
    """
    seen: dict[int, Any] = {}
    count: dict[int, int] = {}
    for item in items:
        if isinstance(item, tuple):
            for part in {id(x): x for x in item}.values():
                seen[id(part)] = part
                count[id(part)] = count.get(id(part), 0) + 1
    repeated = [part for key, part in seen.items() if count[key] > 1 and _is_large(part)]
    if threads > 1 and len(repeated) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(min(threads, len(repeated))) as pool:
            shared = list(pool.map(share, repeated))
    else:
        shared = [share(part) for part in repeated]
    handles = {id(part): handle for part, handle in zip(repeated, shared, strict=True)}
    return [tuple(handles.get(id(part), part) for part in item) if isinstance(item, tuple) else item for item in items]


def _is_large(obj: Any) -> bool:
    import numpy as np

    if isinstance(obj, np.ndarray):
        return obj.nbytes >= SHARE_MIN_BYTES
    # Anything else is sized when pickled, in to_shared_memory.
    return not (obj is None or isinstance(obj, (bool, int, float, str, bytes)))


@dataclass(frozen=True)
class SharedArray:
    """Where a worker finds an array in shared memory (picklable, a few bytes)."""

    segment: str
    shape: tuple[int, ...]
    dtype: str
    call: int


@dataclass(frozen=True)
class SharedPickle:
    """Where a worker finds a pickled object in shared memory."""

    segment: str
    size: int
    call: int


def to_shared_memory(obj: Any, call: int, segments: list[Any]) -> Any:
    """Copy ``obj`` into a new shared-memory segment; return its handle (or ``obj`` when small)."""
    from multiprocessing import shared_memory

    import numpy as np

    if isinstance(obj, np.ndarray) and obj.dtype != object:
        data = np.ascontiguousarray(obj)
        segment = shared_memory.SharedMemory(create=True, size=max(data.nbytes, 1))
        segments.append(segment)
        np.ndarray(data.shape, data.dtype, buffer=segment.buf)[...] = data
        return SharedArray(segment.name, data.shape, data.dtype.str, call)
    blob = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    if len(blob) < SHARE_MIN_BYTES:
        return obj
    segment = shared_memory.SharedMemory(create=True, size=len(blob))
    segments.append(segment)
    buf = segment.buf
    assert buf is not None, "a segment just created is mapped"
    buf[: len(blob)] = blob
    return SharedPickle(segment.name, len(blob), call)


def release_segment(segment: Any, registry: dict[int, Any], key: int) -> None:
    """Remove the segment of an array made by ``LocalProcessExecutor.empty`` (its finalizer).

    Its memory goes once no process maps it: this one when the array goes, a
    worker at its next call.
    """
    registry.pop(key, None)
    segment.unlink()


#: In a worker: the objects of the current map call's segments, by segment name.
_attached: dict[str, Any] = {}

_attached_call: list[int] = [-1]


def resolve_shared(handle: Any) -> Any:
    """In a worker: the object behind a shared-memory handle (mapped once per map call)."""
    import numpy as np

    if not isinstance(handle, (SharedArray, SharedPickle)):
        return handle
    if handle.call != _attached_call[0]:
        # A new map call: the parent has unlinked its predecessor's segments. Dropping our
        # references unmaps them once no array uses them (an array keeps its mapping alive).
        _attached.clear()
        _attached_call[0] = handle.call
    if handle.segment not in _attached:
        mapping = map_segment(handle.segment)
        if isinstance(handle, SharedArray):
            count = int(np.prod(handle.shape))
            _attached[handle.segment] = np.frombuffer(mapping, np.dtype(handle.dtype), count).reshape(handle.shape)
        else:
            _attached[handle.segment] = pickle.loads(mapping[: handle.size])
    return _attached[handle.segment]


def map_segment(name: str, writable: bool = False) -> Any:
    """Map a shared-memory segment (read-only unless ``writable``).

    Not through ``SharedMemory(name)``: before Python 3.13 that registers the
    segment with this process's resource tracker, which then warns of leaks
    and unlinks it a second time.
    """
    try:
        import _posixshmem
    except ImportError:  # pragma: no cover - Windows: no resource tracker there
        from multiprocessing import shared_memory

        return shared_memory.SharedMemory(name=name).buf
    flags, prot = (os.O_RDWR, mmap.PROT_READ | mmap.PROT_WRITE) if writable else (os.O_RDONLY, mmap.PROT_READ)
    fd = _posixshmem.shm_open("/" + name.lstrip("/"), flags, mode=0o600)
    try:
        return mmap.mmap(fd, os.fstat(fd).st_size, prot=prot)
    finally:
        os.close(fd)


class ResolveShared:
    """A task wrapper that swaps shared-memory handles in a tuple item for their objects."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn

    def __call__(self, item: Any) -> Any:
        if isinstance(item, tuple):
            item = tuple(resolve_shared(part) for part in item)
        return self.fn(item)
