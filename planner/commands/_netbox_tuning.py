"""Tuning constants of ``planner netbox push``, with the measurements that chose them
(NetBox 4.5.10 on a shared 2-core machine, benchmarks/NETBOX.md).

A write costs NetBox about 0.25 CPU seconds per object (two-hall plan: 86 CPU seconds of
gunicorn and PostgreSQL for 353 objects): a device's interfaces made from its type's templates,
each with a change record and a search entry; a cable's path traced and stored. A small request
costs about 0.1 - 0.2 s (the reads of that push). So a batch of 50 objects is within a few per
cent of the fastest, and a larger one only risks the worker's timeout (120 s in NetBox's
contrib gunicorn configuration) on a busy machine: 25 devices took 27 s a request at load
average 12.
"""

BATCH = {"devices": 50, "cables": 100, "racks": 100, "default": 500}
"""Objects per bulk write (one request, one transaction in NetBox). Racks write at about 5 a
second on a busy machine (two-hall plan, load 13), so 100, not 500, to stay inside the
timeout."""

IN_FLIGHT = 3
"""Batches sent at once, each on its own connection, so NetBox's gunicorn workers (5 in its
contrib configuration) and PostgreSQL work side by side: one request keeps one NetBox worker
busy on one core. Three keep two cores busy while a request's answer is read."""

PAGE = 1000
"""Objects per read: NetBox's default ``MAX_PAGE_SIZE``; pages after the first are read
``IN_FLIGHT`` at a time."""
