"""A small client of NetBox's REST API: paged reads and bulk writes over one keep-alive
connection (NetBox REST API docs: "Bulk create / update / delete" send a JSON list to the
list endpoint; pages of ``limit`` objects from ``offset``; ``fields`` picks the fields of
each object, NetBox 4.0+).

Standard library only (``http.client``): the push needs six verbs of one API, which a client
library would not shorten. Tokens: a v2 token (``nbt_<key>.<secret>``, NetBox 4.5+) is sent as
``Authorization: Bearer``, a v1 token as ``Authorization: Token``.
"""

from __future__ import annotations

import http.client
import json
import time
from urllib.parse import urlencode, urlsplit

from planner.run.errors import InputError

PAGE = 1000
"""Objects per read: NetBox's default ``MAX_PAGE_SIZE``."""
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
    tens of seconds on a small NetBox)."""

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
        self.connection = None
        self.used = 0.0
        self.url = url

    def _connect(self):
        kind = (http.client.HTTPSConnection if self.scheme == "https"
                else http.client.HTTPConnection)
        return kind(self.host, self.port, timeout=self.timeout)

    def request(self, method: str, path: str, body=None, query: dict | None = None):
        """One request to ``/api/<path>``; the decoded JSON answer (None when empty)."""
        target = self.base + path + (("?" + urlencode(query)) if query else "")
        data = None if body is None else json.dumps(body).encode()
        tries = RETRIES if method == "GET" else 1
        for attempt in range(tries):
            if time.monotonic() - self.used > IDLE_S:
                self.close()
            try:
                if self.connection is None:
                    self.connection = self._connect()
                self.connection.request(method, target, body=data, headers=self.headers)
                response = self.connection.getresponse()
                text = response.read().decode("utf-8", "replace")
                self.used = time.monotonic()
            except (ConnectionError, http.client.HTTPException, TimeoutError, OSError) as err:
                self.close()
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

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def read(self, path: str, fields: str | None = None, **filters) -> list[dict]:
        """Every object of list endpoint ``path`` (``dcim/devices/``) matching ``filters``,
        page by page; only ``fields`` (comma-separated) when given."""
        query = dict(filters, limit=PAGE)
        if fields:
            query["fields"] = fields
        out, offset = [], 0
        while True:
            page = self.request("GET", path, query=dict(query, offset=offset))
            out.extend(page["results"])
            offset += len(page["results"])
            if not page["results"] or offset >= page["count"]:
                return out

    def create(self, path: str, rows: list[dict]) -> list[dict]:
        """Bulk create (one transaction): the created objects, in order."""
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
