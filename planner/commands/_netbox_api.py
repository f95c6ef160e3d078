"""A small client of NetBox's REST API: paged reads and bulk writes, several at once, each on
a keep-alive connection of its own thread (NetBox REST API docs: "Bulk create / update /
delete" send a JSON list to the list endpoint; pages of ``limit`` objects from ``offset``;
``fields`` picks the fields of each object in a read, NetBox 4.0+).

Standard library only (``http.client``): the push needs six verbs of one API, which a client
library would not shorten. Tokens: a v2 token (``nbt_<key>.<secret>``, NetBox 4.5+) is sent as
``Authorization: Bearer``, a v1 token as ``Authorization: Token``.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlencode, urlsplit

from planner.commands._netbox_tuning import IN_FLIGHT, PAGE
from planner.run.errors import InputError

RETRIES = 3
"""Attempts of one read when the connection drops (a restarted worker) or NetBox answers
502/503/504 (a proxy in front of a busy NetBox). A write is never repeated: NetBox may have
done it, so the push stops and a second push resumes from what NetBox then holds."""
IDLE_S = 1.0
"""A connection idle this long is replaced before the next request: gunicorn closes idle
keep-alive connections after 2 s (its default ``keepalive``)."""


class NetBoxRefused(Exception):
    """NetBox answered a request with an error status: ``status`` and its message."""

    def __init__(self, method: str, path: str, status: int, text: str):
        super().__init__(f"{method} {path}: HTTP {status}: {text[:600]}")
        self.status, self.text = status, text


class Client:
    """NetBox at ``url`` (``https://netbox.example.com``, with or without ``/api``) with
    ``token``; ``timeout`` seconds per request (a bulk write of a few hundred devices takes
    tens of seconds on a small NetBox). Safe to share between threads: each thread has its own
    connection."""

    def __init__(self, url: str, token: str, timeout: float = 600.0):
        parts = urlsplit(url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InputError(f"--url: expected http(s)://host[:port][/path] of a NetBox, "
                             f"got {url!r}")
        self.scheme, self.host, self.port = parts.scheme, parts.hostname, parts.port
        base = parts.path[:-4] if parts.path.endswith("/api") else parts.path
        self.base = base.rstrip("/") + "/api/"
        scheme = "Bearer" if token.startswith("nbt_") else "Token"
        self.headers = {"Authorization": f"{scheme} {token}", "Accept": "application/json",
                        "Content-Type": "application/json"}
        self.timeout = timeout
        self.url = url
        self.local = threading.local()  # this thread's connection and when it was last used
        self.lock = threading.Lock()
        self.connections: list = []
        self.pool: ThreadPoolExecutor | None = None

    def _connect(self):
        kind = (http.client.HTTPSConnection if self.scheme == "https"
                else http.client.HTTPConnection)
        return kind(self.host, self.port, timeout=self.timeout)

    def request(self, method: str, path: str, body=None, query: dict | None = None):
        """One request to ``/api/<path>``; the decoded JSON answer (None when empty)."""
        target = self.base + path + (("?" + urlencode(query, doseq=True)) if query else "")
        data = None if body is None else json.dumps(body).encode()
        tries = RETRIES if method == "GET" else 1
        local = self.local
        for attempt in range(tries):
            if time.monotonic() - getattr(local, "used", 0.0) > IDLE_S:
                self._drop()
            try:
                if getattr(local, "connection", None) is None:
                    local.connection = self._connect()
                    with self.lock:
                        self.connections.append(local.connection)
                local.connection.request(method, target, body=data, headers=self.headers)
                response = local.connection.getresponse()
                text = response.read().decode("utf-8", "replace")
                local.used = time.monotonic()
            except (ConnectionError, http.client.HTTPException, TimeoutError, OSError) as err:
                self._drop()
                if attempt < tries - 1:
                    time.sleep(2 ** attempt)
                    continue
                again = "" if method == "GET" else "; run the same push again to resume"
                raise InputError(f"--url: NetBox at {self.url} did not answer {method} "
                                 f"{path} ({err}){again}") from None
            if response.status in (502, 503, 504) and attempt < tries - 1:
                time.sleep(2 ** attempt)
                continue
            if response.status >= 400:
                raise NetBoxRefused(method, path, response.status, text)
            return json.loads(text) if text.strip() else None
        raise AssertionError("unreachable")

    def _drop(self) -> None:
        """Close this thread's connection."""
        connection = getattr(self.local, "connection", None)
        if connection is not None:
            connection.close()
            self.local.connection = None
            with self.lock:
                self.connections.remove(connection)

    def close(self) -> None:
        """Close every connection and stop the threads (after the requests in flight)."""
        if self.pool is not None:
            self.pool.shutdown(wait=True)
            self.pool = None
        with self.lock:
            for connection in self.connections:
                connection.close()
            self.connections.clear()
        self.local = threading.local()

    def each(self, work, items, in_flight: int = IN_FLIGHT):
        """``(item, work(item))`` for each of ``items`` in their order, with up to
        ``in_flight`` calls running at once on their own threads. After a failure (or Ctrl-C)
        no call starts; those running finish, and the ones that succeeded are still yielded
        (their batches are in NetBox) before the first error is raised."""
        items = iter(items)
        if self.pool is None:
            self.pool = ThreadPoolExecutor(max(IN_FLIGHT, in_flight),
                                           thread_name_prefix="netbox")
        window: deque = deque()
        failure: BaseException | None = None

        def fill() -> None:
            while failure is None and len(window) < in_flight:
                item = next(items, window)  # the deque itself marks the end
                if item is window:
                    return
                window.append((item, self.pool.submit(work, item)))

        fill()
        while window:
            item, future = window[0]
            try:
                result = future.result()
            except KeyboardInterrupt as err:
                if failure is not None and not future.done():
                    raise  # a second Ctrl-C: stop waiting
                failure = failure or err
                if not future.done():
                    continue  # Ctrl-C while waiting: let this batch finish
                window.popleft()
                continue
            except BaseException as err:  # noqa: BLE001  re-raised below
                failure = failure or err
                window.popleft()
                continue
            window.popleft()
            yield item, result
            fill()
        if failure is not None:
            raise failure

    def read(self, path: str, fields: str | None = None, **filters) -> list[dict]:
        """Every object of list endpoint ``path`` (``dcim/devices/``) matching ``filters``,
        in NetBox's order; only ``fields`` (comma-separated) when given. The first page gives
        the count; the others are read ``IN_FLIGHT`` at a time."""
        query = dict(filters, limit=PAGE)
        if fields:
            query["fields"] = fields
        first = self.request("GET", path, query=dict(query, offset=0))
        out = list(first["results"])
        offsets = range(len(out), first["count"], PAGE) if out else ()
        for _, page in self.each(lambda offset: self.request(
                "GET", path, query=dict(query, offset=offset)), offsets):
            out.extend(page["results"])
        return out

    def create(self, path: str, rows: list[dict]) -> list[dict]:
        """Bulk create (one transaction): the created objects, in order. (No ``fields`` to
        trim the answer: NetBox 4.5 applies it to the fields it reads from the rows too.)"""
        return self.request("POST", path, rows) if rows else []

    def update(self, path: str, rows: list[dict]) -> list[dict]:
        """Bulk update: each row has the object's ``id`` and the fields to change."""
        return self.request("PATCH", path, rows) if rows else []

    def delete(self, path: str, ids: list[int]) -> None:
        """Bulk delete by id."""
        if ids:
            self.request("DELETE", path, [{"id": i} for i in ids])

    def version(self) -> str:
        """The NetBox release (``4.5.10``) from ``/api/status/``."""
        return str(self.request("GET", "status/")["netbox-version"])
