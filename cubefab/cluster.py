"""Dask clusters for work that fans out over many independent tasks.

Sweeps (:mod:`cubefab.sim.sweep`) and all-sources property checks run their tasks on
``dask.distributed``: an embedded local cluster by default (one single-threaded worker
process per core), or a running cluster named by its scheduler address
(``--scheduler tcp://host:8786`` on the command line). cubefab never schedules work
itself: it submits tasks and gathers results, and Dask places them, retries a task
whose worker died and reports progress.
"""

import contextlib
import logging
import os
import signal
import socket
import sys
import threading
import time
import warnings


__all__ = ["ClusterError", "SCHEDULER_TIMEOUT", "default_workers", "open_client",
           "gather_as_completed"]


#: Seconds to wait for a named scheduler before giving up (the command line answers
#: within 10 s, its own start included).
SCHEDULER_TIMEOUT = 8


class ClusterError(RuntimeError):
    """A cluster could not be started or reached (the message says which and why)."""


def default_workers():
    """Worker processes of an embedded cluster: the CPUs this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


@contextlib.contextmanager
def open_client(scheduler=None, *, workers=None, timeout=SCHEDULER_TIMEOUT):
    """A ``dask.distributed.Client`` for the duration of a ``with`` block.

    Parameters
    ----------
    scheduler : str or None
        Address of a running scheduler (``tcp://host:port`` or ``host:port``). None
        starts an embedded local cluster, closed again when the block ends.
    workers : int or None
        Worker processes of the embedded cluster (default :func:`default_workers`);
        ignored with ``scheduler``.
    timeout : float
        Seconds to wait for ``scheduler`` to answer.

    Raises
    ------
    ClusterError
        If the scheduler does not answer within ``timeout`` seconds, or the local
        cluster cannot start.
    """
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - a declared dependency
        raise ClusterError(f"dask.distributed is not installed ({exc}); "
                           f"pip install 'dask[distributed]'") from None
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise ValueError(f"Workers must be a positive integer, not {workers!r}")
    if scheduler is not None:
        if not isinstance(scheduler, str) or not scheduler.strip():
            raise ValueError(f"Scheduler must be an address like tcp://host:8786, "
                             f"not {scheduler!r}")
        address = scheduler.strip()
        if "://" not in address:
            address = "tcp://" + address
        deadline = time.monotonic() + timeout
        _probe(address, scheduler, timeout)
        try:
            client = Client(address, timeout=max(1.0, deadline - time.monotonic()),
                            set_as_default=False)
        except Exception as exc:  # noqa: BLE001 - whatever answered, it is no scheduler
            raise ClusterError(f"no Dask scheduler answered at {scheduler} within "
                               f"{timeout:g} s ({type(exc).__name__})") from None
        try:
            yield client
        finally:
            client.close()
        return
    cluster = None
    try:
        # Ctrl-C or SIGTERM while the workers start would leave a cluster half made,
        # which no one closes (Dask's exit handler then fails): they wait until it is
        # made, and then interrupt, with the cluster closed below
        with _interrupts_deferred(), _stderr_kept_from_workers(), \
                warnings.catch_warnings():
            # the scheduler's status page moves off a busy port 8787 with a warning
            warnings.filterwarnings("ignore", message="Port .* is already in use")
            try:
                cluster = LocalCluster(n_workers=workers or default_workers(),
                                       threads_per_worker=1, processes=True,
                                       dashboard_address=None,
                                       silence_logs=logging.CRITICAL)
            except Exception as exc:  # noqa: BLE001 - reported as one line
                raise ClusterError(f"could not start a local Dask cluster: {exc}") from None
        with Client(cluster, set_as_default=False) as client:
            yield client
    finally:
        if cluster is not None:
            with _interrupts_deferred():
                cluster.close()


@contextlib.contextmanager
def _interrupts_deferred():
    """SIGINT and SIGTERM that arrive in the block are handled when it ends (by the
    handlers that were in place: KeyboardInterrupt for Ctrl-C). Only in the main
    thread, where Python handles signals; elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending = []
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)
                if signal.getsignal(sig) is not None}    # (None: not set from Python)
    for sig in handlers:
        signal.signal(sig, lambda signum, frame: pending.append(signum))
    try:
        yield
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        for signum in pending[:1]:      # the first one, as it would have been
            signal.raise_signal(signum)


@contextlib.contextmanager
def _stderr_kept_from_workers():
    """The processes started in the block (a local cluster's workers) write their
    standard error to the null device. A terminal's Ctrl-C reaches its whole process
    group, workers included, and each would print its traceback before this process
    says ``error: interrupted``; a task's own error comes back through its future
    (:func:`gather_as_completed`), so a worker has nothing to say to the user."""
    sys.stderr.flush()
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def _probe(address, scheduler, timeout):
    """Fail fast unless something speaking Dask's protocol answers at ``address``: a
    refused TCP connection at once (Dask itself would retry until ``timeout``), a
    server of another protocol (whose reply Dask may misread) without waiting for it."""
    import asyncio
    from distributed.comm import connect
    from distributed.comm.addressing import parse_address, parse_host_port

    def failed(why):
        return ClusterError(f"no Dask scheduler answered at {scheduler} ({why})")

    deadline = time.monotonic() + timeout
    scheme, location = parse_address(address)
    if scheme == "tcp":
        try:
            host, port = parse_host_port(location, default_port=8786)
            socket.create_connection((host, port), timeout=timeout).close()
        except TimeoutError:
            raise failed(f"nothing within {timeout:g} s") from None
        except (OSError, ValueError) as exc:
            raise failed(exc.strerror if isinstance(exc, OSError) and exc.strerror
                         else type(exc).__name__) from None

    async def handshake():
        comm = await connect(address, timeout=max(1.0, deadline - time.monotonic()))
        await comm.close()

    try:
        asyncio.run(asyncio.wait_for(handshake(), max(1.0, deadline - time.monotonic())))
    except (TimeoutError, asyncio.TimeoutError):
        raise failed(f"no handshake within {timeout:g} s") from None
    except Exception as exc:  # noqa: BLE001 - a garbled reply may raise anything
        raise failed(f"not a Dask scheduler: {type(exc).__name__}") from None


def gather_as_completed(client, futures, progress=None):
    """Results of ``futures`` in submission order, reporting ``progress(done, total)``
    as each completes. A task whose worker dies is retried by Dask (submit with
    ``retries=``); a task that raises re-raises its exception here."""
    from dask.distributed import as_completed

    futures = list(futures)
    index = {f.key: i for i, f in enumerate(futures)}
    results = [None] * len(futures)
    for done, future in enumerate(as_completed(futures, loop=client.loop), 1):
        results[index[future.key]] = future.result()
        if progress is not None:
            progress(done, len(futures))
    return results
