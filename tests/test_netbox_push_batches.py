"""How ``planner netbox push`` talks to NetBox, without a NetBox: a small REST server on
localhost (http.server) records every request. Checked by counting: bulk writes are JSON lists
of at most ``BATCH`` objects, one request per batch; several batches are in flight at once but
never more than ``IN_FLIGHT``; the created objects come back in the plan's order whatever order
the server answers in; reads take ``ceil(count / PAGE)`` pages; a failed batch stops the push
after the batches already sent; cables on panel ports are written one batch at a time.
"""

from __future__ import annotations

import json
import math
import threading
from urllib.parse import parse_qs, urlsplit

import pytest

from planner.commands import _netbox_tuning as tuning
from planner.commands import netbox as command
from planner.commands._netbox_api import Client, NetBoxRefused
from test_netbox_push import _bundle_counts, json_server
from test_netbox_push import fake, plan, plan_dir  # noqa: F401  fixtures

TOKEN = "0123456789abcdef0123456789abcdef01234567"
STORED = 2_345  # objects a list endpoint of the server holds


class Recorder:
    """A list endpoint that answers bulk writes with ids and reads with pages of ``STORED``
    objects, recording each request; ``hold`` makes the first writes wait until ``hold``
    of them are in the server at once (so the answers come back out of order)."""

    def __init__(self, fail_first: str | None = None):
        self.lock = threading.Lock()
        self.requests: list[tuple[str, str, dict, object]] = []
        self.in_flight = self.most_in_flight = 0
        self.hold, self.arrived = 1, None
        self.fail_first = fail_first  # a write whose first row has this name is refused
        self.turn = threading.Condition()
        self.held: list[str] = []  # first row name of each held write not answered yet

    def hold_first(self, n: int) -> None:
        """Answer none of the first ``n`` writes before all ``n`` have arrived, then answer
        them last batch first (by their rows' names)."""
        self.hold, self.arrived = n, threading.Barrier(n) if n > 1 else None

    def _wait_turn(self, body) -> None:
        key = body[0]["name"]
        with self.turn:
            self.held.append(key)
        self.arrived.wait(timeout=30)
        with self.turn:
            self.turn.wait_for(lambda: max(self.held) == key, timeout=30)

    def answer(self, method: str, url: str, body):
        parts = urlsplit(url)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        held = False
        with self.lock:
            self.requests.append((method, parts.path, query, body))
            n = sum(m != "GET" for m, *_ in self.requests)
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            held = method != "GET" and self.arrived is not None and n <= self.hold
            if held:
                self._wait_turn(body)
            if method == "GET":
                offset, limit = int(query.get("offset", 0)), int(query.get("limit", 50))
                rows = [{"id": i + 1} for i in range(offset, min(offset + limit, STORED))]
                return 200, {"count": STORED, "results": rows}
            if self.fail_first and body[0].get("name") == self.fail_first:
                return 400, {"detail": "refused"}
            return 200, [{"id": row.get("id", 0), "name": row.get("name")} for row in body]
        finally:
            with self.lock:
                self.in_flight -= 1
            if held:
                with self.turn:
                    self.held.remove(body[0]["name"])
                    self.turn.notify_all()


@pytest.fixture
def server(request):
    recorder = Recorder(**getattr(request, "param", {}))

    def answer(method, path, body, authorization):
        status, reply = recorder.answer(method, path, body)
        return status, json.dumps(reply)

    with json_server(answer) as url:
        recorder.url = url
        yield recorder


def _writer(url: str) -> command.Push:
    return command.Push(bundle=None, client=Client(url, TOKEN), mode="quiet")


@pytest.mark.parametrize("what, n", [("devices", 1), ("devices", 50), ("devices", 173),
                                     ("cables", 1_001), ("racks", 1_500)])
def test_creates_go_in_list_batches_and_come_back_in_order(server, what, n):
    rows = [{"name": f"x{i:05d}"} for i in range(n)]
    size = tuning.BATCH.get(what, tuning.BATCH["default"])
    server.hold_first(min(math.ceil(n / size), tuning.IN_FLIGHT))
    push = _writer(server.url)
    made = push.write(what, "dcim/devices/", command.Writes(create=rows))
    push.client.close()
    posts = [(q, body) for method, _, q, body in server.requests if method == "POST"]
    assert len(posts) == math.ceil(n / size)
    assert all(isinstance(body, list) and 0 < len(body) <= size for _, body in posts)
    # no ``fields=`` on a write: NetBox would read only those fields of the rows
    assert all("fields" not in q for q, _ in posts)
    assert sorted(r["name"] for _, body in posts for r in body) == [r["name"] for r in rows]
    # the server answered the first batches only once all of them had arrived, last one
    # first; the push still returns the objects in the order of the rows
    assert [m["name"] for m in made] == [r["name"] for r in rows]
    assert push.counts["created"] == n
    assert server.most_in_flight == min(len(posts), tuning.IN_FLIGHT)


def test_deletes_then_updates_then_creates_each_in_batches(server):
    push = _writer(server.url)
    writes = command.Writes(create=[{"name": "new"}] * 3, update=[{"id": i} for i in range(120)],
                            delete=list(range(1, 1_002)))
    push.write("locations", "dcim/locations/", writes)
    push.client.close()
    methods = [m for m, *_ in server.requests]
    size = tuning.BATCH["default"]
    assert methods == ["DELETE"] * math.ceil(1_001 / size) + ["PATCH", "POST"]
    deleted = [row["id"] for m, _, _, body in server.requests if m == "DELETE" for row in body]
    assert sorted(deleted) == list(range(1, 1_002))
    assert push.counts == {"created": 3, "updated": 120, "deleted": 1_001, "unchanged": 0}


def test_reads_take_one_request_per_page_in_order(server):
    client = Client(server.url, TOKEN)
    rows = client.read("dcim/interfaces/", fields="id,name,device", site_id=7)
    client.close()
    assert [r["id"] for r in rows] == list(range(1, STORED + 1))
    gets = [q for m, _, q, _ in server.requests if m == "GET"]
    assert len(gets) == math.ceil(STORED / tuning.PAGE)
    assert sorted(int(q["offset"]) for q in gets) == list(range(0, STORED, tuning.PAGE))
    assert all(q["limit"] == str(tuning.PAGE) and q["fields"] == "id,name,device"
               and q["site_id"] == "7" for q in gets)


@pytest.mark.parametrize("server", [{"fail_first": f"x{3 * tuning.BATCH['devices']}"}],
                         indirect=True)
def test_a_refused_batch_stops_the_writes_after_those_in_flight(server):
    push = _writer(server.url)
    rows = [{"name": f"x{i}"} for i in range(20 * tuning.BATCH["devices"])]
    with pytest.raises(NetBoxRefused):
        push.write("devices", "dcim/devices/", command.Writes(create=rows))
    push.client.close()
    posts = [body for m, _, _, body in server.requests if m == "POST"]
    # the 4th batch is refused; none starts once the push has seen that: at most the
    # IN_FLIGHT - 1 after it were sent
    assert 4 <= len(posts) <= 4 + tuning.IN_FLIGHT - 1
    # every batch NetBox took is counted, the refused one is not
    assert push.counts["created"] == (len(posts) - 1) * tuning.BATCH["devices"]


def test_no_two_cables_of_one_path_are_written_at_once(fake, plan, plan_dir, monkeypatch):
    """The cables of a two-hall structured plan, pushed into the fake NetBox of
    test_netbox_push with small batches: trunks (panel to panel) are written one batch at a
    time before any cord, and the two cords of a link through panels are never in writes that
    overlap in time (NetBox traces the path through the panels as each cord is saved)."""
    monkeypatch.setitem(tuning.BATCH, "cables", 3)
    lock, clock, calls = threading.Lock(), [0], []
    real = Client.create

    def create(self, path, rows, *args):
        if path != "dcim/cables/":
            return real(self, path, rows, *args)
        with lock:
            clock[0] += 1
            call = {"start": clock[0], "rows": rows}
            calls.append(call)
        try:
            return real(self, path, rows, *args)
        finally:
            with lock:
                clock[0] += 1
                call["end"] = clock[0]

    monkeypatch.setattr(Client, "create", create)
    client = Client(fake.url, TOKEN)
    command.push(command.read_bundle(plan_dir), client)
    client.close()
    assert fake.count()["dcim/cables/"] == _bundle_counts(plan_dir)["dcim/cables/"]
    assert sum(len(c["rows"]) for c in calls) == _bundle_counts(plan_dir)["dcim/cables/"]

    def ends(row):
        return {(t["object_type"], t["object_id"]) for t in row["a_terminations"]
                + row["b_terminations"]}

    def overlap(x, y):
        return x is y or (x["start"] < y["end"] and y["start"] < x["end"])

    interface = {(fake.db["dcim/devices/"][o["device"]]["name"], o["name"]): o["id"]
                 for o in fake.db["dcim/interfaces/"].values()}
    call_of = {end: call for call in calls for row in call["rows"] for end in ends(row)}
    trunks = [c for c in calls if any("dcim.interface" not in {k for k, _ in ends(r)}
                                      for r in c["rows"])]
    cords = [c for c in calls if any({k for k, _ in ends(r)} == {"dcim.interface", "dcim.frontport"}
                                     for r in c["rows"])]
    assert trunks and cords
    assert all(not overlap(t, c) for t in trunks for c in calls if c is not t)
    assert max(t["end"] for t in trunks) < min(c["start"] for c in cords)
    names = plan.router_model.interface_name_list
    links = [row for row in plan.cables.itertuples(index=False) if row.segments]
    assert len(links) == len(plan.structured.links) > 0
    side_by_side = 0
    for row in links:
        a = call_of[("dcim.interface", interface[(row.a_device, names[row.a_port - 1])])]
        b_port = names[row.b_port - 1] if row.kind == "network" else str(row.b_port)
        b = call_of[("dcim.interface", interface[(row.b_device, b_port)])]
        assert not overlap(a, b), row.cable_id
        side_by_side += any(overlap(a, c) for c in cords if c is not a)
    assert side_by_side > 0  # cords of other links did go at once


def test_front_ports_of_one_type_are_added_beside_complete_types(fake, plan_dir):
    """NetBox holds every device type of the plan but one panel type lost its front-port
    templates: the push adds them back, mapped to that type's rear ports, in one bulk write,
    and leaves the complete types alone."""
    client = Client(fake.url, TOKEN)
    command.push(command.read_bundle(plan_dir), client)
    fronts = fake.db["dcim/front-port-templates/"]
    types = sorted({t["device_type"] for t in fronts.values()})
    assert len(types) >= 2  # the plan has several panel types
    lost = {i: t for i, t in fronts.items() if t["device_type"] == types[0]}
    for i in lost:
        del fronts[i]
    fake.writes.clear()
    command.push(command.read_bundle(plan_dir), client)
    client.close()
    assert fake.writes == [("POST", "dcim/front-port-templates/", len(lost))]
    again = {t["name"]: t["rear_ports"] for t in fronts.values() if t["device_type"] == types[0]}
    assert again == {t["name"]: t["rear_ports"] for t in lost.values()}
