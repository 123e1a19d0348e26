"""Where the chunks of a regime map run: in this process, in local processes, or on Dask.

Each executor maps a top-level function over a list of argument tuples and yields
``(index, result)`` as results arrive (any order).  Dask is imported only when asked for.
"""
from __future__ import annotations

import os
from abc import ABC, abstractmethod
from typing import Callable, Iterator

from ..spec.errors import InvalidParameters

__all__ = ["Executor", "SerialExecutor", "ProcessExecutor", "DaskExecutor", "make_executor", "default_workers"]


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


class Executor(ABC):
    name = "abstract"
    workers = 1

    @abstractmethod
    def map_unordered(self, fn: Callable, args: list[tuple]) -> Iterator[tuple[int, object]]:
        """Yield (index, fn(*args[index])) as the results arrive."""

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class SerialExecutor(Executor):
    name = "serial"

    def map_unordered(self, fn, args):
        for i, a in enumerate(args):
            yield i, fn(*a)


class ProcessExecutor(Executor):
    """A pool of local processes (concurrent.futures)."""

    name = "processes"

    def __init__(self, workers: int | None = None):
        from concurrent.futures import ProcessPoolExecutor

        self.workers = workers or default_workers()
        self._pool = ProcessPoolExecutor(max_workers=self.workers)

    def map_unordered(self, fn, args):
        from concurrent.futures import as_completed

        futs = {self._pool.submit(fn, *a): i for i, a in enumerate(args)}
        try:
            for fut in as_completed(futs):
                yield futs[fut], fut.result()
        finally:
            for fut in futs:
                fut.cancel()

    def close(self):
        self._pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor(Executor):
    """A Dask distributed cluster: an existing scheduler (``tcp://host:port``) or a local one."""

    name = "dask"

    def __init__(self, scheduler: str | None = None, local_workers: int | None = None):
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise InvalidParameters("--scheduler", "Dask is not installed: pip install 'symbolic-tf[dask]'") from None
        self._cluster = None
        if scheduler:
            try:
                self._client = Client(scheduler, timeout="10s")
            except (OSError, TimeoutError) as exc:
                raise InvalidParameters("--scheduler", f"cannot reach {scheduler!r}: {exc}") from None
        else:
            n = local_workers or default_workers()
            self._cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                         dashboard_address=None)
            self._client = Client(self._cluster)
        self.workers = len(self._client.scheduler_info().get("workers", {})) or (local_workers or 1)

    def map_unordered(self, fn, args):
        from dask.distributed import as_completed

        futs = [self._client.submit(fn, *a, pure=False) for a in args]
        index = {f.key: i for i, f in enumerate(futs)}
        try:
            for fut in as_completed(futs):
                yield index[fut.key], fut.result()
        finally:
            for f in futs:
                f.cancel()

    def close(self):
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


def make_executor(workers: int | None = None, scheduler: str | None = None,
                  dask_local: int | None = None) -> Executor:
    """Serial if workers == 1, Dask if a scheduler or a local Dask cluster is asked for,
    else a process pool (default: all cores)."""
    if workers is not None and workers < 1:
        raise InvalidParameters("--workers", f"must be ≥ 1, got {workers}")
    if dask_local is not None and dask_local < 1:
        raise InvalidParameters("--dask-local", f"must be ≥ 1, got {dask_local}")
    if scheduler or dask_local:
        return DaskExecutor(scheduler, dask_local)
    w = workers or default_workers()
    return SerialExecutor() if w == 1 else ProcessExecutor(w)
