"""Where the chunks of a regime map run: in this process, in local processes, or on Dask.

Each executor maps a top-level function over a list of argument tuples and yields
``(index, result)`` as results arrive (any order).  Dask is imported only when asked for.
"""
from __future__ import annotations

import os
from abc import ABC, abstractmethod
from typing import Callable, Iterator

from ..spec.errors import InvalidParameters

__all__ = ["Executor", "Dynamic", "SerialExecutor", "ProcessExecutor", "DaskExecutor", "make_executor", "default_workers"]


def default_workers() -> int:
    """The number of cores this process may run on (its CPU affinity; else the CPU count).

    Returns
    -------
    int
        At least 1.
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


class Executor(ABC):
    name = "abstract"
    workers = 1

    @abstractmethod
    def map_unordered(self, fn: Callable, args: list[tuple]) -> Iterator[tuple[int, object]]:
        """Yield (index, fn(*args[index])) as the results arrive.

        Parameters
        ----------
        fn : callable
            A top-level (picklable) function.
        args : list of tuple
            The argument tuples, one per task.

        Yields
        ------
        tuple of (int, object)
            ``(index, fn(*args[index]))`` as the results arrive.
        """

    @abstractmethod
    def dynamic(self, fn: Callable) -> "Dynamic":
        """A task queue for ``fn`` that accepts new tasks while results are consumed (see
        :class:`Dynamic`): the regime map submits the refinement of a chunk as soon as that chunk
        returns, so no worker waits for a whole quadtree level to finish.

        Parameters
        ----------
        fn : callable
            A top-level (picklable) function.

        Returns
        -------
        Dynamic
            The task queue; ``add(key, args)`` queues ``fn(*args)``.
        """

    def close(self) -> None:
        """Release the workers (nothing to do here)."""
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Dynamic(ABC):
    """``add(key, args)`` queues ``fn(*args)``; iterating yields ``(key, result)`` as results arrive
    and may be interleaved with further ``add`` calls; it ends when nothing is pending."""

    @abstractmethod
    def add(self, key, args: tuple) -> None:
        """Queue ``fn(*args)``; its result is yielded with ``key``.

        Parameters
        ----------
        key : hashable
            The label of the task, yielded with its result.
        args : tuple
            The positional arguments of ``fn``.
        """

    @abstractmethod
    def __iter__(self) -> Iterator[tuple[object, object]]: ...


class _SerialDynamic(Dynamic):
    def __init__(self, fn):
        from collections import deque

        self.fn, self.queue = fn, deque()

    def add(self, key, args):
        self.queue.append((key, args))

    def __iter__(self):
        while self.queue:
            key, args = self.queue.popleft()
            yield key, self.fn(*args)


class _FutureDynamic(Dynamic):
    """concurrent.futures pools: each future puts itself on a queue when done (no ``wait`` over
    every pending future for each result)."""

    def __init__(self, pool, fn):
        import queue

        self.pool, self.fn, self.pending, self.done = pool, fn, {}, queue.SimpleQueue()

    def add(self, key, args):
        fut = self.pool.submit(self.fn, *args)
        self.pending[fut] = key
        fut.add_done_callback(self.done.put)

    def __iter__(self):
        try:
            while self.pending:
                fut = self.done.get()
                key = self.pending.pop(fut)
                yield key, fut.result()
        finally:
            for fut in self.pending:
                fut.cancel()


class _DaskDynamic(Dynamic):
    def __init__(self, client, fn):
        from dask.distributed import as_completed

        self.client, self.fn, self.keys = client, fn, {}
        # with_results: the results are gathered as the tasks finish, not one request per result
        self.ac = as_completed(with_results=True)

    def add(self, key, args):
        fut = self.client.submit(self.fn, *args, pure=False)
        self.keys[fut.key] = key
        self.ac.add(fut)

    def __iter__(self):
        try:
            for fut, res in self.ac:
                yield self.keys.pop(fut.key), res
        finally:
            for fut in list(self.ac.futures):
                fut.cancel()


class SerialExecutor(Executor):
    name = "serial"

    def map_unordered(self, fn, args):
        """Yield (index, fn(*args[index])) as the results arrive. In this process, in order.

        Parameters
        ----------
        fn : callable
            A top-level (picklable) function.
        args : list of tuple
            The argument tuples, one per task.

        Yields
        ------
        tuple of (int, object)
            ``(index, fn(*args[index]))`` as the results arrive.
        """
        for i, a in enumerate(args):
            yield i, fn(*a)

    def dynamic(self, fn):
        """A task queue for ``fn`` that accepts new tasks while results are consumed.

        Parameters
        ----------
        fn : callable
            A top-level (picklable) function.

        Returns
        -------
        Dynamic
            The task queue; ``add(key, args)`` queues ``fn(*args)``.
        """
        return _SerialDynamic(fn)


#: modules a pool worker imports when it starts, so the first task does not pay for them (the map
#: worker's); named, not imported here: an executor runs any function and depends on none of them
WARM_MODULES = ("symbolic_tf.regimes.maps", "symbolic_tf.certify.search.cell_riccati_vI", "symbolic_tf.certify.search.riccati")


def _warm_worker() -> None:
    """Process-pool initializer: import :data:`WARM_MODULES` once per process."""
    import importlib

    for name in WARM_MODULES:
        importlib.import_module(name)


def _ready() -> int:
    return os.getpid()


class ProcessExecutor(Executor):
    """A pool of local processes (concurrent.futures)."""

    name = "processes"

    def __init__(self, workers: int | None = None):
        from concurrent.futures import ProcessPoolExecutor, wait

        self.workers = workers or default_workers()
        self._pool = ProcessPoolExecutor(max_workers=self.workers, initializer=_warm_worker)
        # start every worker now (the pool would start them lazily, inside the first map's wall time)
        wait([self._pool.submit(_ready) for _ in range(self.workers)])

    def map_unordered(self, fn, args):
        """Yield (index, fn(*args[index])) as the results arrive. On the process pool (pending tasks are cancelled when the iteration stops).

        Parameters
        ----------
        fn : callable
            A top-level (picklable) function.
        args : list of tuple
            The argument tuples, one per task.

        Yields
        ------
        tuple of (int, object)
            ``(index, fn(*args[index]))`` as the results arrive.
        """
        from concurrent.futures import as_completed

        futs = {self._pool.submit(fn, *a): i for i, a in enumerate(args)}
        try:
            for fut in as_completed(futs):
                yield futs[fut], fut.result()
        finally:
            for fut in futs:
                fut.cancel()

    def dynamic(self, fn):
        """A task queue for ``fn`` that accepts new tasks while results are consumed.

        Parameters
        ----------
        fn : callable
            A top-level (picklable) function.

        Returns
        -------
        Dynamic
            The task queue; ``add(key, args)`` queues ``fn(*args)``.
        """
        return _FutureDynamic(self._pool, fn)

    def close(self):
        """Shut the pool down, cancelling pending tasks."""
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
        """Yield (index, fn(*args[index])) as the results arrive. On the Dask cluster (pending tasks are cancelled when the iteration stops).

        Parameters
        ----------
        fn : callable
            A top-level (picklable) function.
        args : list of tuple
            The argument tuples, one per task.

        Yields
        ------
        tuple of (int, object)
            ``(index, fn(*args[index]))`` as the results arrive.
        """
        from dask.distributed import as_completed

        futs = [self._client.submit(fn, *a, pure=False) for a in args]
        index = {f.key: i for i, f in enumerate(futs)}
        try:
            for fut in as_completed(futs):
                yield index[fut.key], fut.result()
        finally:
            for f in futs:
                f.cancel()

    def dynamic(self, fn):
        """A task queue for ``fn`` that accepts new tasks while results are consumed.

        Parameters
        ----------
        fn : callable
            A top-level (picklable) function.

        Returns
        -------
        Dynamic
            The task queue; ``add(key, args)`` queues ``fn(*args)``.
        """
        return _DaskDynamic(self._client, fn)

    def close(self):
        """Close the Dask client (and the local cluster, when this executor started one)."""
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


def make_executor(workers: int | None = None, scheduler: str | None = None,
                  dask_local: int | None = None) -> Executor:
    """Serial if workers == 1, Dask if a scheduler or a local Dask cluster is asked for,
    else a process pool (default: all cores).

    Parameters
    ----------
    workers : int, optional
        The number of worker processes (≥ 1; default: :func:`default_workers`).
    scheduler : str, optional
        The address of a Dask scheduler.
    dask_local : int, optional
        Start a local Dask cluster with this many workers (≥ 1).

    Returns
    -------
    Executor
        A :class:`SerialExecutor`, :class:`DaskExecutor` or :class:`ProcessExecutor`; raises
        InvalidParameters on workers < 1 or dask_local < 1.
    """
    if workers is not None and workers < 1:
        raise InvalidParameters("--workers", f"must be ≥ 1, got {workers}")
    if dask_local is not None and dask_local < 1:
        raise InvalidParameters("--dask-local", f"must be ≥ 1, got {dask_local}")
    if scheduler or dask_local:
        return DaskExecutor(scheduler, dask_local)
    w = workers or default_workers()
    return SerialExecutor() if w == 1 else ProcessExecutor(w)
