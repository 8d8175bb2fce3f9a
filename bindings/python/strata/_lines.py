"""JSON lines: a source's bytes in chunks, and the chunks' models (docs/lines.md)."""

from __future__ import annotations

import ctypes
import io
import os
from ctypes import byref, c_size_t
from typing import Any, Callable, Iterator, List, Optional, Union, cast

from ._errors import LineError, MappingError
from ._handles import adopt_array, last_errors, take_errors
from ._model import Model
from ._native import lib, strata_error_t

__all__ = ["line_chunks", "map_chunks"]

_LINES_CHUNK = 1 << 16
# The read buffer of a binary file's lines (see line_chunks): 64 KiB, not
# the C functions' 256 KiB, because each buffer's models are made at once and
# released in their turn (with 256 KiB, map_lines on the issues bench took
# 180-220 ms instead of 153: the release ran out of the core's cache).
_LINES_BUFFER = 1 << 16


def line_chunks(source: Any) -> Iterator[Union[bytes, memoryview]]:
    """The bytes of a map_lines source, in chunks (generator; closes the
    files it opens). A binary file's chunks are views of one buffer, each
    valid until the next."""
    if isinstance(source, str):
        source = source.encode("utf-8", "surrogatepass")
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        for start in range(0, len(data), _LINES_CHUNK):
            yield data[start : start + _LINES_CHUNK]
        return
    if isinstance(source, os.PathLike):
        with open(source, "rb") as file:
            yield from line_chunks(file)
        return
    if isinstance(source, io.TextIOBase):
        # A text file translates newlines (a lone \r, JSON whitespace, would
        # end a line): read its bytes instead when nothing is decoded ahead.
        raw = getattr(source, "buffer", None)
        try:
            untouched = raw is not None and source.tell() == raw.tell()
        except (OSError, ValueError, AttributeError):
            untouched = False
        if untouched:
            yield from line_chunks(raw)
            return
    readinto = getattr(source, "readinto", None)
    if callable(readinto) and not isinstance(source, io.TextIOBase):
        # One buffer for the whole file (a new bytes object per read makes
        # the allocator consolidate its free lists every time). Each chunk
        # ends at the last newline read: the unfinished line moves to the
        # front and the next read lands after it, so the engine parses every
        # line shorter than the buffer in place (as strata_map_lines_file).
        buffer = bytearray(_LINES_BUFFER)
        view = memoryview(buffer)
        held = 0
        while True:
            size = readinto(view[held:])
            if not size:
                if held:
                    yield view[:held]
                return
            filled = held + size
            end = buffer.rfind(b"\n", held, filled) + 1
            if end == 0:
                if filled < len(buffer):
                    held = filled
                    continue
                end = filled  # a line longer than the buffer: the engine gathers it
            yield view[:end]
            held = filled - end
            if held:
                buffer[:held] = buffer[end:filled]
        return
    read = getattr(source, "read", None)
    if callable(read):
        while True:
            chunk = read(_LINES_CHUNK)
            if not chunk:
                return
            yield chunk.encode("utf-8", "surrogatepass") if isinstance(chunk, str) else bytes(chunk)
    try:
        lines = iter(source)
    except TypeError:
        raise TypeError(
            "strata: map_lines takes a file, a path, JSON lines text or an iterable of lines, "
            f"not {type(source).__name__}"
        ) from None
    for line in lines:
        if isinstance(line, str):
            line = line.encode("utf-8", "surrogatepass")
        elif isinstance(line, (bytearray, memoryview)):
            line = bytes(line)
        elif not isinstance(line, bytes):
            raise TypeError(f"strata: a line must be str or bytes, not {type(line).__name__}")
        yield line if line.endswith(b"\n") else line + b"\n"


def map_chunks(
    handle: int, chunks: Iterator[Union[bytes, memoryview]], raising: bool, wrap: Callable[[int], Model]
) -> Iterator[Union[Model, LineError]]:
    """The models of the lines in ``chunks``, fed to the JSON lines mapper
    ``handle`` (which it frees, with the chunks, when done or abandoned);
    a bad line raises its :class:`MappingError` when ``raising``, else is a
    :class:`LineError` in its place."""
    # One C call per chunk hands back the chunk's lines in an array (a
    # callback per line would cost more than the line); the Models are
    # made at once, as map_many makes them, so each handle has an owner.
    count = c_size_t()
    bad = ctypes.c_void_p()
    error = strata_error_t()
    feed = lib.strata_lines_feed_array
    try:
        finished = False
        while not finished:
            chunk = next(chunks, None)
            if chunk is None:
                finished = True
                array = feed(handle, None, 0, 1, byref(count), byref(bad), byref(error))
            else:
                size = len(chunk)
                # a view of the read buffer (never empty) goes by address:
                # an array type per chunk size would be made, and cached
                # by ctypes, for every size met
                data = byref(ctypes.c_char.from_buffer(chunk)) if type(chunk) is memoryview else chunk
                array = feed(handle, data, size, 0, byref(count), byref(bad), byref(error))
            if not array:
                raise MappingError(last_errors(error), "cannot map lines")
            bad_lines, bad.value = bad.value, None
            try:
                # a bad line's place (a NULL entry) holds None
                items: List[Optional[Model]] = adopt_array(array, count.value, wrap)
            except BaseException:
                if bad_lines:
                    lib.strata_json_decref(bad_lines)
                raise
            if not bad_lines:
                yield from cast(List[Model], items)  # no bad line: no None
                continue
            # bad lines: a LineError in each None's place
            failures = iter(take_errors(bad_lines))
            for item in items:
                if item is not None:
                    yield item
                    continue
                errors = next(failures, [])
                failure = LineError(int(errors[0].get("line", 0)) if errors else 0, errors)
                if raising:
                    # the lines after it are dropped with their Models
                    raise failure.exception()
                yield failure
    finally:
        lib.strata_lines_free(handle)
        close = getattr(chunks, "close", None)
        if close is not None:
            close()


class LineIterator(Iterator[Union[Model, LineError]]):
    """What ``Schema.map_lines`` returns: the models of the lines, one by
    one. The C mapper ``handle`` goes when the lines end, when the iterator
    is closed or dropped half way, and also when it is dropped before its
    first item (a generator that never started would never run its
    ``finally``)."""

    __slots__ = ("_handle", "_items", "_started")

    def __init__(self, handle: int, items: Iterator[Union[Model, LineError]]) -> None:
        self._handle: Optional[int] = handle
        self._items = items
        self._started = False

    def __iter__(self) -> "LineIterator":
        return self

    def __next__(self) -> Union[Model, LineError]:
        self._started = True
        return next(self._items)

    def close(self) -> None:
        """Stops reading: the mapper and the models not yet yielded are released."""
        handle, self._handle = self._handle, None
        if self._started:
            close = getattr(self._items, "close", None)
            if close is not None:
                close()
        elif handle is not None:
            lib.strata_lines_free(handle)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

