"""Byte ranges of a JSON-lines file, for one partition per chunk.

A file of S bytes cut every N bytes gives the ranges [0, N), [N, 2N), ...
A line belongs to the range that holds its first byte, so every line is
read by exactly one partition: :class:`RangeReader` skips the line that a
range starts inside of (the partition before reads it) and reads past the
range's end to finish its own last line. It counts the lines it gives, so
the client can turn line numbers within a range into line numbers within the
file (add the lines of the ranges before it).
"""

from __future__ import annotations

from typing import BinaryIO, List, Tuple

_CHUNK = 1 << 16


def split(size: int, chunk_bytes: int) -> List[Tuple[int, int]]:
    """The ranges of a file of ``size`` bytes: the whole file when
    ``chunk_bytes`` is 0 or the file is no longer, else one per chunk."""
    if chunk_bytes < 0:
        raise ValueError("chunk_bytes must be 0 (whole files) or positive")
    if chunk_bytes == 0 or size <= chunk_bytes:
        return [(0, size)]
    return [(start, min(start + chunk_bytes, size)) for start in range(0, size, chunk_bytes)]


class RangeReader:
    """A binary file object (``read(n)``) over the lines whose first byte is
    in ``[start, end)`` of ``file``; ``lines`` is how many it has given so far
    (blank ones too, as map_lines counts them)."""

    def __init__(self, file: BinaryIO, start: int, end: int) -> None:
        self._file = file
        self._end = end
        self._done = False
        self.lines = 0
        self._pending_line = False  # the last byte given was not "\n"
        self._position = self._first_line_start(start)

    def _first_line_start(self, start: int) -> int:
        if start == 0:
            self._file.seek(0)
            return 0
        # The line that holds byte `start` began before it unless byte
        # start - 1 is a newline: then skip to the byte after the next one.
        self._file.seek(start - 1)
        position = start - 1
        while True:
            chunk = self._file.read(_CHUNK)
            if not chunk:
                self._done = True
                return position
            index = chunk.find(b"\n")
            if index >= 0:
                position += index + 1
                self._file.seek(position)
                return position
            position += len(chunk)

    def read(self, size: int = _CHUNK) -> bytes:
        """Up to ``size`` bytes of the range's lines; b"" at its end."""
        if self._done or size == 0:
            return b""
        if self._position >= self._end and not self._pending_line:
            self._done = True
            return b""
        data = self._file.read(size if size > 0 else _CHUNK)
        if not data:
            self._done = True
            if self._pending_line:  # a last line without "\n" is a line
                self.lines += 1
                self._pending_line = False
            return b""
        # Our lines end at the first newline at or after byte end - 1.
        cut = data.find(b"\n", max(0, self._end - 1 - self._position))
        if cut >= 0:
            data = data[: cut + 1]
            self._done = True
        self._position += len(data)
        self.lines += data.count(b"\n")
        self._pending_line = not data.endswith(b"\n")
        return data
