"""Vector data sets of OSB's k-NN workloads: ``hdf5`` (ANN-Benchmarks files) and ``bigann``
(Big-ANN-Benchmarks binary files), read as OSB reads them.

Source: OpenSearch Benchmark 2.4.0, ``osbenchmark/utils/dataset.py`` (``get_data_set``,
``HDF5DataSet``, ``BigANNVectorDataSet``, ``BigANNGroundTruthDataSet``).

* ``hdf5``: one file holds several data sets; the :class:`Context` says which one
  (``train`` for indexing, ``test`` for queries, ``neighbors`` for the true neighbors, ...).
  Reading needs ``h5py`` (``pip install 'esbench[osb]'``).
* ``bigann``: an 8-byte header (rows, dimension: little-endian uint32) then the rows. The file's
  extension gives the type: ``.fbin`` float32, ``.u8bin`` uint8 (read as floats, as OSB does),
  ``.bin`` a ground-truth file (uint32 neighbor ids, followed by as many float32 distances,
  which are not read). The context is ignored (a file holds one data set).

A reader keeps a position: :meth:`VectorDataSet.read` returns the next rows (lists of numbers)
and moves on; :meth:`VectorDataSet.seek` moves to a row.
"""

from __future__ import annotations

import os
import struct
import sys
from array import array
from enum import StrEnum
from pathlib import Path
from typing import Any, BinaryIO

from esbench.exceptions import ConfigError

#: One row of a data set: a vector (floats) or a row of neighbor ids (ints).
Row = list[Any]


class Context(StrEnum):
    """Which data set of an hdf5 file a reader reads (OSB's ``Context``; value = hdf5 data set name)."""

    INDEX = "train"
    QUERY = "test"
    NEIGHBORS = "neighbors"
    RADIAL_NEIGHBORS = "radial_neighbors"
    PARENTS = "parents"
    ATTRIBUTES = "attributes"


class VectorDataSet:
    """A readable data set (see module doc)."""

    def size(self) -> int:
        """Rows in the data set."""
        raise NotImplementedError

    def seek(self, offset: int) -> None:
        """Move to row ``offset``.

        Raises:
            esbench.exceptions.ConfigError: ``offset`` is negative or not below :meth:`size`.
        """
        raise NotImplementedError

    def read(self, count: int) -> list[Row] | None:
        """The next ``count`` rows (fewer at the end), or None when none are left."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the file."""


def _check_offset(offset: int, size: int, path: str) -> None:
    if offset < 0 or offset >= size:
        raise ConfigError(
            f"Cannot move to row {offset} of the vector data set '{path}': it has {size} rows. Lower "
            f"the operation's 'num_vectors' or use fewer clients than rows."
        )


class Hdf5DataSet(VectorDataSet):
    """The ``context`` data set of an hdf5 file (needs ``h5py``)."""

    def __init__(self, path: str, context: Context) -> None:
        try:
            import h5py
        except ImportError:
            raise ConfigError(
                f"Reading the hdf5 vector data set '{path}' needs the h5py package, which is not "
                f"installed. Install it with: pip install 'esbench[osb]' (or pip install h5py)."
            ) from None
        if not Path(path).is_file():
            raise ConfigError(f"The hdf5 vector data set '{path}' does not exist. Fix 'data_set_path'.")
        self._path = path
        self._file = h5py.File(path, "r")
        try:
            self._data = self._file[str(context)]
        except KeyError:
            names = ", ".join(sorted(self._file.keys()))
            self._file.close()
            raise ConfigError(
                f"The hdf5 vector data set '{path}' has no data set '{context}' (it has: {names}). "
                f"OSB reads '{context}' here; use a file in the ANN-Benchmarks layout."
            ) from None
        self._size = int(self._data.shape[0])
        self._current = 0

    def size(self) -> int:
        return self._size

    def seek(self, offset: int) -> None:
        _check_offset(offset, self._size, self._path)
        self._current = offset

    def read(self, count: int) -> list[Row] | None:
        if self._current >= self._size:
            return None
        end = min(self._current + count, self._size)
        rows: list[Row] = self._data[self._current : end].tolist()
        self._current = end
        return rows

    def close(self) -> None:
        self._file.close()


_HEADER = 8
#: extension -> (array typecode, bytes per value, values are ids of a ground-truth file)
_BIGANN_TYPES = {"fbin": ("f", 4, False), "u8bin": ("B", 1, False), "bin": ("I", 4, True)}


class BigAnnDataSet(VectorDataSet):
    """A Big-ANN-Benchmarks file (``.fbin``, ``.u8bin`` or ground truth ``.bin``)."""

    def __init__(self, path: str) -> None:
        extension = path.rsplit(".", 1)[-1]
        if extension not in _BIGANN_TYPES:
            raise ConfigError(
                f"The bigann vector data set '{path}' has the extension '.{extension}'; OSB reads "
                f".fbin and .u8bin vectors and .bin ground truth. Rename the file or fix 'data_set_path'."
            )
        self._typecode, self._width, self._ids = _BIGANN_TYPES[extension]
        self._path = path
        try:
            self._file: BinaryIO = open(path, "rb")  # noqa: SIM115 - kept open while reading
        except OSError as exc:
            raise ConfigError(f"Cannot open the bigann vector data set '{path}': {exc.strerror}.") from None
        length = os.fstat(self._file.fileno()).st_size
        if length < _HEADER:
            self._file.close()
            raise ConfigError(f"The bigann vector data set '{path}' is shorter than its 8-byte header.")
        self._rows, self._dim = struct.unpack("<II", self._file.read(_HEADER))
        # A ground-truth file holds the ids, then as many distances (OSB checks the doubled size).
        expected = self._rows * self._dim * self._width * (2 if self._ids else 1)
        if length - _HEADER != expected:
            self._file.close()
            raise ConfigError(
                f"The bigann vector data set '{path}' has {length - _HEADER} bytes after its header, but "
                f"its header ({self._rows} rows of {self._dim}) needs {expected}. The file is truncated "
                f"or not in the Big-ANN format."
            )
        self._current = 0

    def size(self) -> int:
        return int(self._rows)

    def seek(self, offset: int) -> None:
        _check_offset(offset, self._rows, self._path)
        self._file.seek(_HEADER + offset * self._dim * self._width)
        self._current = offset

    def read(self, count: int) -> list[Row] | None:
        if self._current >= self._rows:
            return None
        n = min(count, self._rows - self._current)
        values = array(self._typecode)
        values.frombytes(self._file.read(n * self._dim * self._width))
        if sys.byteorder != "little":
            values.byteswap()
        as_float = not self._ids
        rows: list[Row] = []
        for i in range(n):
            row = values[i * self._dim : (i + 1) * self._dim].tolist()
            rows.append([float(v) for v in row] if as_float else row)
        self._current += n
        return rows

    def close(self) -> None:
        self._file.close()


#: The ``data_set_format`` values OSB knows.
FORMATS = ("hdf5", "bigann")


def open_data_set(data_set_format: str, path: str, context: Context) -> VectorDataSet:
    """A reader of the data set at ``path`` (OSB's ``get_data_set``).

    Args:
        data_set_format: ``hdf5`` or ``bigann`` (the operation's ``data_set_format``).
        path: the file.
        context: which data set of an hdf5 file (ignored for bigann).

    Raises:
        esbench.exceptions.ConfigError: unknown format, missing file, wrong layout, no h5py.
    """
    if data_set_format == "hdf5":
        return Hdf5DataSet(path, context)
    if data_set_format == "bigann":
        return BigAnnDataSet(path)
    raise ConfigError(
        f"Unknown vector data set format '{data_set_format}' (for '{path}'): use one of {', '.join(FORMATS)} "
        f"in 'data_set_format'."
    )
