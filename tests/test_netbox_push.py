"""``planner netbox push`` against a fake NetBox REST API (http.server, in this file) that keeps
objects the way NetBox's bulk endpoints do: lists in, nested objects and choices out, a
device's ports made from its type's templates, a port holding one cable, one transaction per
request. Then, with NETBOX_URL and NETBOX_TOKEN set, the same push into a real NetBox.

Checked: every link of a two-hall structured plan traces through the panels to the far
interface cables.csv names (read back from the server, as NetBox's trace walks it); labels
are the printed ones; a second push writes nothing; a re-plan writes only its differences; an
interrupted push resumes; clashes and an old NetBox are refused with exit 2 before any write.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pandas as pd
import pytest

from planner.cli import main
from planner.commands import netbox as command
from planner.commands._netbox_api import Client
from planner.exports import netbox as export
from planner.exports.labels import label_rows
from planner.run.errors import InputError

TOKEN = "0123456789abcdef0123456789abcdef01234567"

# endpoint -> (foreign keys: field -> endpoint, choice fields)
MODELS = {
    "extras/tags/": ({}, ()),
    "dcim/manufacturers/": ({}, ()),
    "dcim/device-roles/": ({}, ()),
    "dcim/device-types/": ({"manufacturer": "dcim/manufacturers/"}, ()),
    "dcim/interface-templates/": ({"device_type": "dcim/device-types/"}, ("type",)),
    "dcim/power-port-templates/": ({"device_type": "dcim/device-types/"}, ("type",)),
    "dcim/rear-port-templates/": ({"device_type": "dcim/device-types/"}, ("type",)),
    "dcim/front-port-templates/": ({"device_type": "dcim/device-types/"}, ("type",)),
    "dcim/sites/": ({}, ("status",)),
    "dcim/locations/": ({"site": "dcim/sites/"}, ("status",)),
    "dcim/racks/": ({"site": "dcim/sites/", "location": "dcim/locations/"},
                    ("status", "width")),
    "dcim/devices/": ({"site": "dcim/sites/", "location": "dcim/locations/",
                       "rack": "dcim/racks/", "role": "dcim/device-roles/",
                       "device_type": "dcim/device-types/"}, ("status", "face")),
    "dcim/interfaces/": ({"device": "dcim/devices/"}, ("type",)),
    "dcim/front-ports/": ({"device": "dcim/devices/"}, ("type",)),
    "dcim/rear-ports/": ({"device": "dcim/devices/"}, ("type",)),
    "dcim/cables/": ({}, ("status", "length_unit", "type")),
}
PORTS = {"dcim.interface": "dcim/interfaces/", "dcim.frontport": "dcim/front-ports/",
         "dcim.rearport": "dcim/rear-ports/"}
TEMPLATES = {"dcim/interface-templates/": "dcim/interfaces/",
             "dcim/rear-port-templates/": "dcim/rear-ports/",
             "dcim/front-port-templates/": "dcim/front-ports/"}


class Refused(Exception):
    def __init__(self, status: int, text: str):
        super().__init__(text)
        self.status = status


class FakeNetBox:
    """NetBox's REST API over an in-memory store: ``db[endpoint][id] = fields``."""

    def __init__(self, version: str = "4.5.10"):
        self.version = version
        self.db = {path: {} for path in MODELS}
        self.next_id = 1
        self.lock = threading.Lock()
        self.writes: list[tuple[str, str, int]] = []  # (method, endpoint, objects)
        self.drop_at: tuple[str, int] | None = None  # (endpoint, n): its n-th write drops

    # the API
    def handle(self, method: str, url: str, body, auth: str):
        if auth != f"Token {TOKEN}":
            raise Refused(403, '{"detail": "Invalid token"}')
        parts = urlsplit(url)
        path = parts.path.removeprefix("/api/")
        query = parse_qs(parts.query)  # a filter given more than once matches any of its values
        if path == "status/":
            return {"netbox-version": self.version}
        if path not in MODELS:
            raise Refused(404, f"no endpoint {path}")
        if method == "GET":
            rows = [self.render(path, o) for o in self.db[path].values() if self.match(path, o, query)]
            offset = int(query.get("offset", ["0"])[0])
            limit = int(query.get("limit", ["50"])[0])
            return {"count": len(rows), "results": rows[offset:offset + limit]}
        if self.drop_at and self.drop_at == (path, sum(w[1] == path for w in self.writes)):
            raise ConnectionResetError
        saved = copy.deepcopy((self.db, self.next_id))
        try:  # one transaction per request
            out = [getattr(self, method.lower())(path, row) for row in body]
        except Refused:
            self.db, self.next_id = saved
            raise
        self.writes.append((method, path, len(body)))
        return None if method == "DELETE" else [self.render(path, o) for o in out]

    def match(self, path: str, obj: dict, query: dict) -> bool:
        for key, values in query.items():
            if key in ("limit", "offset", "fields", "brief"):
                continue
            if key == "site_id":
                if str(self.site_of(path, obj)) not in values:
                    return False
            elif key.endswith("_id"):
                if str(obj.get(key[:-3])) not in values:
                    return False
            elif str(obj.get(key)) not in values:
                return False
        return True

    def site_of(self, path: str, obj: dict):
        if path in ("dcim/interfaces/", "dcim/front-ports/", "dcim/rear-ports/"):
            return self.db["dcim/devices/"][obj["device"]]["site"]
        if path == "dcim/cables/":
            ends = obj["a_terminations"] + obj["b_terminations"]
            return self.site_of(PORTS[ends[0]["object_type"]],
                                self.db[PORTS[ends[0]["object_type"]]][ends[0]["object_id"]])
        return obj.get("site")

    def render(self, path: str, obj: dict) -> dict:
        keys, choices = MODELS[path]
        out = dict(obj)
        for k, target in keys.items():
            if obj.get(k) is not None:
                out[k] = {"id": obj[k], "name": self.db[target][obj[k]].get(
                    "name", self.db[target][obj[k]].get("model"))}
        for k in choices:
            if obj.get(k) not in (None, ""):
                out[k] = {"value": obj[k], "label": str(obj[k]).title()}
        out["tags"] = [{"id": t, "slug": self.db["extras/tags/"][t]["slug"]}
                       for t in obj.get("tags", [])]
        for side in ("a_terminations", "b_terminations"):
            if side in obj:
                out[side] = [dict(t, object=self.render(PORTS[t["object_type"]],
                                                        self.db[PORTS[t["object_type"]]][t["object_id"]]))
                             for t in obj[side]]
        return out

    def post(self, path: str, row: dict) -> dict:
        obj = {k: v for k, v in row.items()}
        if path == "dcim/cables/":
            for t in obj["a_terminations"] + obj["b_terminations"]:
                port = self.db[PORTS[t["object_type"]]][t["object_id"]]
                if port.get("cable"):
                    raise Refused(400, f"port {port['name']} already has a cable")
        if path == "dcim/devices/":
            self.check_device(obj)
        for k in ("name", "slug"):
            if k in obj and path in ("extras/tags/", "dcim/manufacturers/", "dcim/device-roles/",
                                     "dcim/sites/", "dcim/device-types/"):
                if any(o.get(k) == obj[k] for o in self.db[path].values()):
                    raise Refused(400, f"{k} {obj[k]} exists")
        obj["id"] = self.next_id
        self.next_id += 1
        self.db[path][obj["id"]] = obj
        if path == "dcim/devices/":
            self.instantiate(obj)
        if path == "dcim/cables/":
            for t in obj["a_terminations"] + obj["b_terminations"]:
                self.db[PORTS[t["object_type"]]][t["object_id"]]["cable"] = obj["id"]
        return obj

    def check_device(self, obj: dict) -> None:
        for other in self.db["dcim/devices/"].values():
            if other["id"] == obj.get("id"):
                continue
            if other.get("site") == obj.get("site") and other["name"] == obj["name"]:
                raise Refused(400, f"device name {obj['name']} exists")
            if (obj.get("position") is not None and other.get("rack") == obj.get("rack")
                    and other.get("position") == obj.get("position")
                    and other.get("face") == obj.get("face")):
                raise Refused(400, f"U{obj['position']} of the rack is occupied")

    def instantiate(self, device: dict) -> None:
        """The device's ports from its type's templates (front ports keep their mappings)."""
        rear_ids = {}
        for template_path, port_path in TEMPLATES.items():
            for t in list(self.db[template_path].values()):
                if t["device_type"] != device["device_type"]:
                    continue
                port = {"device": device["id"], "name": t["name"], "type": t["type"],
                        "cable": None}
                if "positions" in t:
                    port["positions"] = t["positions"]
                if port_path == "dcim/front-ports/":
                    port["rear_ports"] = [dict(m, rear_port=rear_ids[m["rear_port"]])
                                          for m in t["rear_ports"]]
                port = self.post(port_path, port)
                if port_path == "dcim/rear-ports/":
                    rear_ids[t["id"]] = port["id"]

    def patch(self, path: str, row: dict) -> dict:
        obj = self.db[path][row["id"]]
        merged = {**obj, **row}
        if path == "dcim/devices/":
            self.check_device(merged)
        obj.update(row)
        return obj

    def delete(self, path: str, row: dict) -> dict:
        obj = self.db[path].pop(row["id"])
        if path == "dcim/cables/":
            for t in obj["a_terminations"] + obj["b_terminations"]:
                self.db[PORTS[t["object_type"]]][t["object_id"]]["cable"] = None
        if path == "dcim/devices/":
            for port_path in PORTS.values():
                for port in [p for p in self.db[port_path].values() if p["device"] == obj["id"]]:
                    if port.get("cable"):
                        self.delete("dcim/cables/", {"id": port["cable"]})
                    self.db[port_path].pop(port["id"])
        return obj

    # reading back, as NetBox's cable trace does
    def far_end(self, device: str, interface: str) -> tuple[str, str, list[str]]:
        """Follow the cable from ``device`` ``interface`` through panel port mappings to the
        interface at the far end: (device, interface, the panel ports passed)."""
        devices = {o["id"]: o["name"] for o in self.db["dcim/devices/"].values()}
        port = next(p for p in self.db["dcim/interfaces/"].values()
                    if devices[p["device"]] == device and p["name"] == interface)
        kind, position, passed = "dcim.interface", 1, []
        for _ in range(100):
            cable = self.db["dcim/cables/"][port["cable"]]
            ends = cable["a_terminations"] + cable["b_terminations"]
            far = next(t for t in ends if (t["object_type"], t["object_id"]) != (kind, port["id"]))
            kind, port = far["object_type"], self.db[PORTS[far["object_type"]]][far["object_id"]]
            if kind == "dcim.interface":
                return devices[port["device"]], port["name"], passed
            passed.append(f"{devices[port['device']]}:{port['name']}")
            if port["positions"] == 1:
                position = 1
            if kind == "dcim.frontport":
                m = next(m for m in port["rear_ports"] if m["position"] == position)
                kind, position = "dcim.rearport", m["rear_port_position"]
                port = self.db["dcim/rear-ports/"][m["rear_port"]]
            else:
                front, m = next((f, m) for f in self.db["dcim/front-ports/"].values()
                                for m in f["rear_ports"]
                                if m["rear_port"] == port["id"]
                                and m["rear_port_position"] == position)
                kind, position, port = "dcim.frontport", m["position"], front
            passed.append(f"{devices[port['device']]}:{port['name']}")
        raise AssertionError("trace does not end")

    def count(self) -> dict[str, int]:
        return {path: len(objs) for path, objs in self.db.items()}


@contextlib.contextmanager
def json_server(answer):
    """A threaded HTTP/1.1 server on a free localhost port, yielding its URL: every request's
    method, path, JSON body (None when empty) and Authorization header go to ``answer``, which
    returns (status, response text), or raises ConnectionResetError to drop the connection
    without a response."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _serve(self):
            size = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(size)) if size else None
            try:
                status, text = answer(self.command, self.path, body,
                                      self.headers.get("Authorization", ""))
            except ConnectionResetError:
                self.close_connection = True
                self.wfile.flush()
                self.connection.shutdown(2)
                return
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = do_DELETE = _serve

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def fake():
    server = FakeNetBox()

    def answer(method, path, body, authorization):
        try:
            with server.lock:
                reply = server.handle(method, path, body, authorization)
        except Refused as err:
            return err.status, str(err)
        return 200, json.dumps(reply) if reply is not None else ""

    with json_server(answer) as url:
        server.url = url
        yield server


@pytest.fixture(scope="module")
def plan():
    from test_routes import hand_placement
    from test_structured import structured_catalog, structured_floor
    from planner.plan import plan as make_plan
    top, placement, _ = hand_placement()
    return make_plan(top, structured_catalog(), structured_floor(), placement=placement)


@pytest.fixture(scope="module")
def plan_dir(plan, tmp_path_factory):
    from planner.exports import cables_csv
    out = tmp_path_factory.mktemp("plan")
    export.write(plan, out)
    cables_csv.write(plan, out)
    return out


def _push(url: str, plan_dir: Path, tmp_path: Path, token: str = TOKEN) -> int:
    token_file = tmp_path / "token.txt"
    token_file.write_text(token + "\n")
    return main(["netbox", "push", "--plan", str(plan_dir), "--url", url,
                 "--token-file", str(token_file)])


def _bundle_counts(plan_dir: Path) -> dict[str, int]:
    folder = plan_dir / export.FOLDER
    rows = {n: len(pd.read_csv(folder / n, dtype=str)) for n in export.CSV_FILES}
    return {"dcim/sites/": 1, "dcim/locations/": rows["locations.csv"],
            "dcim/racks/": rows["racks.csv"], "dcim/devices/": rows["devices.csv"],
            "dcim/cables/": rows["cables.csv"]}


def test_push_traces_every_link_and_labels_as_printed(fake, plan, plan_dir, tmp_path):
    assert _push(fake.url, plan_dir, tmp_path) == 0
    counts = fake.count()
    for path, n in _bundle_counts(plan_dir).items():
        assert counts[path] == n, path
    halls = sorted(set(plan.cabinets["hall"]))
    assert len(halls) == 2
    assert sorted(o["name"] for o in fake.db["dcim/locations/"].values()) == ["Hall 1", "Hall 2"]
    # every rack in its hall's location, as cabinets.csv numbers halls
    loc = {o["id"]: o["name"] for o in fake.db["dcim/locations/"].values()}
    racks = {o["name"]: loc[o["location"]] for o in fake.db["dcim/racks/"].values()}
    for name, hall in zip(plan.cabinets["name"], plan.cabinets["hall"]):
        assert racks[name] == f"Hall {hall + 1}"
    # every link reaches the far interface cables.csv names, through the panels of its segments
    cables = pd.read_csv(plan_dir / "cables.csv", dtype=str, keep_default_na=False)
    names = plan.router_model.interface_name_list
    through = 0
    for row in plan.cables.itertuples(index=False):
        far = (row.b_device, names[row.b_port - 1] if row.kind == "network" else str(row.b_port))
        device, port, passed = fake.far_end(row.a_device, names[row.a_port - 1])
        assert (device, port) == far, row.cable_id
        if row.segments:
            through += 1
            listed = [s for s in row.segments.split(" | ") if not s.startswith(("cord", "trunk"))]
            assert passed[0] == listed[0] and passed[-1] == listed[-1], row.cable_id
    assert through == len(plan.structured.links) > 0
    assert len(cables) == len(plan.cables)
    # labels in NetBox are the printed labels, piece by piece
    printed = label_rows(plan.pieces)
    want = sorted(printed["label"][0::2].tolist())
    assert sorted(o["label"] for o in fake.db["dcim/cables/"].values()) == want
    trunk_labels = {o["label"] for o in fake.db["dcim/cables/"].values()
                    if o["a_terminations"][0]["object_type"] == "dcim.rearport"}
    assert trunk_labels and all("/" in t and ":R" in t for t in trunk_labels)


def test_second_push_writes_nothing(fake, plan_dir, tmp_path, capsys):
    assert _push(fake.url, plan_dir, tmp_path) == 0
    before, writes = fake.count(), len(fake.writes)
    assert _push(fake.url, plan_dir, tmp_path) == 0
    assert fake.count() == before and len(fake.writes) == writes
    assert "already held this plan" in capsys.readouterr().out


def _replan(plan_dir: Path, out: Path) -> dict:
    """A changed copy of the bundle: one router gone (its cables too), one cable's length and
    one rack's description changed, one device moved to a free unit; what a push must write."""
    import shutil
    shutil.copytree(plan_dir / export.FOLDER, out / export.FOLDER)
    folder = out / export.FOLDER
    read = lambda n: pd.read_csv(folder / n, dtype=str, keep_default_na=False)  # noqa: E731
    devices, cables, racks = read("devices.csv"), read("cables.csv"), read("racks.csv")
    gone = devices[devices["role"] != export.PANEL_ROLE]["name"].iloc[-1]
    devices = devices[devices["name"] != gone]
    dropped = (cables["side_a_device"] == gone) | (cables["side_b_device"] == gone)
    cables = cables[~dropped].reset_index(drop=True)
    cables.loc[0, "length"] = str(float(cables.loc[0, "length"]) + 1)
    racks.loc[0, "description"] = "moved by the re-plan"
    positioned = devices[devices["position"] != ""]
    mover = positioned.index[0]
    rack = devices.loc[mover, "rack"]
    used = set(devices[devices["rack"] == rack]["position"])
    free = next(str(u) for u in range(1, 40) if str(u) not in used and f"{u}.0" not in used
                and all(str(u + k) not in used for k in range(-2, 3)))
    devices.loc[mover, "position"] = free
    for frame, name in ((devices, "devices.csv"), (cables, "cables.csv"), (racks, "racks.csv")):
        frame.to_csv(folder / name, index=False)
    return {"deleted": 1 + int(dropped.sum()), "updated": 3}


def test_replan_pushes_only_its_differences(fake, plan_dir, tmp_path):
    assert _push(fake.url, plan_dir, tmp_path) == 0
    before = fake.count()
    fake.writes.clear()
    replan = tmp_path / "replan"
    replan.mkdir()
    want = _replan(plan_dir, replan)
    counts = command.push(command.read_bundle(replan), Client(fake.url, TOKEN))
    assert counts["created"] == 0
    assert counts["deleted"] == want["deleted"] and counts["updated"] == want["updated"]
    after = fake.count()
    assert after["dcim/devices/"] == before["dcim/devices/"] - 1
    assert after["dcim/cables/"] == before["dcim/cables/"] - (want["deleted"] - 1)
    # and the re-plan, pushed again, writes nothing
    fake.writes.clear()
    command.push(command.read_bundle(replan), Client(fake.url, TOKEN))
    assert fake.writes == []


def test_interrupted_push_resumes(fake, plan_dir, tmp_path, monkeypatch):
    monkeypatch.setitem(command.BATCH, "cables", 5)
    fake.drop_at = ("dcim/cables/", 3)  # the connection drops at the 4th batch of cables
    with pytest.raises(InputError, match="run the same push again"):
        command.push(command.read_bundle(plan_dir), Client(fake.url, TOKEN))
    # whole batches only (several are sent at once: those before and beside the dropped one)
    written = [n for method, path, n in fake.writes if path == "dcim/cables/"]
    assert len(written) >= 3 and max(written) <= 5
    assert fake.count()["dcim/cables/"] == sum(written) < _bundle_counts(plan_dir)["dcim/cables/"]
    fake.drop_at = None
    assert _push(fake.url, plan_dir, tmp_path) == 0
    counts = fake.count()
    for path, n in _bundle_counts(plan_dir).items():
        assert counts[path] == n, path


@pytest.mark.parametrize("kind", ["site", "device", "cable"])
def test_clash_is_refused_before_any_write(fake, plan_dir, tmp_path, capsys, kind):
    folder = plan_dir / export.FOLDER
    site = pd.read_csv(folder / "sites.csv", dtype=str).iloc[0]
    device = pd.read_csv(folder / "devices.csv", dtype=str).iloc[0]["name"]
    if kind == "site":
        fake.post("dcim/sites/", {"name": site["name"], "slug": site["slug"], "status": "active"})
        named = f"site '{site['name']}'"
    else:
        assert _push(fake.url, plan_dir, tmp_path) == 0
        if kind == "device":  # the device made by hand, not by a push
            obj = next(o for o in fake.db["dcim/devices/"].values() if o["name"] == device)
            obj["tags"] = []
            named = f"device '{device}'"
        else:  # a cable made by hand on a port of the plan
            obj = next(iter(fake.db["dcim/cables/"].values()))
            obj["tags"] = []
            named = f"cable #{obj['id']}"
    before, writes = fake.count(), len(fake.writes)
    assert _push(fake.url, plan_dir, tmp_path) == 2
    err = capsys.readouterr().err
    assert named in err and len(err.strip().splitlines()) == 1
    assert fake.count() == before and len(fake.writes) == writes


def test_old_netbox_and_bad_token_are_refused(fake, plan_dir, tmp_path, capsys):
    assert _push(fake.url, plan_dir, tmp_path, token="wrong") == 2
    assert "refused the token" in capsys.readouterr().err
    fake.version = "4.4.9"
    assert _push(fake.url, plan_dir, tmp_path) == 2
    assert "4.5 or later" in capsys.readouterr().err
    assert fake.writes == []


@pytest.mark.parametrize("args, named", [
    (["--plan", "{tmp}/nowhere"], "--plan"),
    (["--token-file", "{tmp}/missing.txt"], "--token-file"),
    (["--url", "ftp://netbox"], "--url"),
])
def test_bad_arguments_exit_2(plan_dir, tmp_path, capsys, args, named):
    token = tmp_path / "token.txt"
    token.write_text(TOKEN)
    given = {"--plan": str(plan_dir), "--url": "http://127.0.0.1:9", "--token-file": str(token)}
    given.update(dict(zip(args[0::2], [a.format(tmp=tmp_path) for a in args[1::2]])))
    argv = ["netbox", "push"] + [x for kv in given.items() for x in kv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert named in err and len(err.splitlines()) == 1




@pytest.mark.skipif(not os.environ.get("NETBOX_URL"),
                    reason="set NETBOX_URL and NETBOX_TOKEN to push into a real NetBox 4.5+")
def test_push_into_a_real_netbox(plan_dir, tmp_path, capsys):
    """A real NetBox: the two-hall plan from an empty site, NetBox's own trace of every link
    to the far interface cables.csv names, then a second push that writes nothing."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from bench_netbox import empty_site, trace_all
    url, token = os.environ["NETBOX_URL"], os.environ["NETBOX_TOKEN"]
    client = Client(url, token)
    empty_site(client, plan_dir)
    assert _push(url, plan_dir, tmp_path, token) == 0
    links, through = trace_all(client, plan_dir)
    cables = pd.read_csv(plan_dir / "cables.csv")
    assert links == int((cables["kind"] != "mgmt").sum()) and through > 0
    capsys.readouterr()
    assert _push(url, plan_dir, tmp_path, token) == 0
    assert "already held this plan" in capsys.readouterr().out


def test_ctrl_c_says_what_was_written_and_the_next_push_goes_on(fake, plan_dir, tmp_path,
                                                                 capsys, monkeypatch):
    """Ctrl-C during the cables: exit 130, one line counting the objects already in NetBox
    (not "nothing was written"); the next push finishes the plan."""
    real = Client.create

    def create(self, path, rows, *args):
        if path == "dcim/cables/":
            raise KeyboardInterrupt
        return real(self, path, rows, *args)

    monkeypatch.setattr(Client, "create", create)
    assert _push(fake.url, plan_dir, tmp_path) == 130
    err = capsys.readouterr().err.strip()
    made = sum(n for path, n in fake.count().items() if path != "dcim/interfaces/"
               and not path.endswith(("-ports/", "ports/")))
    written = sum(n for method, _, n in fake.writes)
    assert len(err.splitlines()) == 1 and f"after {written:,} objects written" in err
    assert "nothing was written" not in err and fake.count()["dcim/cables/"] == 0 < made
    monkeypatch.setattr(Client, "create", real)
    assert _push(fake.url, plan_dir, tmp_path) == 0
    assert fake.count()["dcim/cables/"] == _bundle_counts(plan_dir)["dcim/cables/"]
