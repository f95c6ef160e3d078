"""``planner netbox push``: load a plan into a running NetBox through its REST API, in bulk.

Reads the plan's NetBox bundle (``DIR/netbox/``, ``planner.exports.netbox``: the same rows the
import forms take) and makes NetBox hold exactly it, kind by kind in import order: tag,
manufacturers, device roles, device types with their port templates, the site, its locations
(one per hall), racks, devices, cables. Each kind is read from NetBox, matched to the plan by
name, and only the difference is written, in bulk batches (a JSON list per request, several
at once; cables in the order ``_push_cables`` gives):

- manufacturers and device roles by name (or slug); an existing one is used as it is;
- device types by manufacturer and model; an existing one must have every port the plan uses;
- the site by name; locations, racks and devices by name inside the site;
- cables by their two ends (device, port kind, port name); a cable is rewritten when its
  fields (type, label, colour, length, status, description) differ.

Everything the push creates carries the tag ``planner``. Inside the plan's site, an object of the
plan's names without that tag was not made by a push: the push refuses it (exit 2, naming up to
ten of them) before writing anything, as it refuses a site of that name without the tag.
Tagged objects of the site that the plan no longer has (a re-plan) are deleted: cables first,
then devices, racks and locations. Manufacturers, roles and device types are shared with the
rest of NetBox and never deleted.

A second push of the same plan reads everything and writes nothing. A push that stops half-way
(Ctrl-C, a dropped connection) leaves whole batches (NetBox writes each in one transaction);
the next push reads them and goes on. Needs NetBox 4.5 or later (panel port mappings).

``planner netbox load`` makes the same objects in bulk on the NetBox host, with NetBox's own
Python and ORM (``planner.commands._netbox_load`` runs ``planner.commands._netbox_bulk``): the
way for a plan of thousands of devices, which the REST API takes at about 0.25 NetBox CPU
seconds an object.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from planner.commands._netbox_tuning import BATCH, IN_FLIGHT
from planner.run.errors import InputError

NAME = "netbox"
HELP = ("push a plan into a running NetBox (REST API, batches) or load it in bulk on the NetBox "
        "host; a second push or load changes nothing")
ORDER = 30

MIN_VERSION = (4, 5)
"""Port mappings of front to rear ports (``rear_ports`` of a front port) came with NetBox 4.5."""
TAG = {"name": "planner", "slug": "planner", "color": "2196f3",
       "description": "made by planner netbox push"}
CLASHES_SHOWN = 10
FILTER_VALUES = 50
"""Values of one filter in one read (``?model=a&model=b...``): 50 model names keep the URL
within the 8 KB a proxy in front of NetBox may allow."""
PORT_ENDPOINTS = {"dcim.interface": "dcim/interfaces/", "dcim.frontport": "dcim/front-ports/",
                  "dcim.rearport": "dcim/rear-ports/"}
CABLE_FIELDS = ("type", "status", "label", "color", "length", "length_unit", "description")


def add_arguments(parser) -> None:
    parser.add_argument("action", choices=["push", "load"],
                        help="push: load the plan into NetBox through its REST API (any size "
                             "NetBox takes at ~0.25 CPU s an object; small plans); load: bulk "
                             "load run on the NetBox host with NetBox's own Python (any size)")
    parser.add_argument("--plan", required=True, metavar="DIR",
                        help="a plan folder written by 'planner plan' (reads DIR/netbox/)")
    parser.add_argument("--url", metavar="URL",
                        help="push: the NetBox, e.g. https://netbox.example.com")
    parser.add_argument("--token-file", metavar="F",
                        help="push: file holding an API token with write permission (v1 or v2 "
                             "'nbt_...'); a file, so the token stays out of shell history")
    parser.add_argument("--netbox", metavar="DIR",
                        help="load: NetBox's netbox/ folder (the one holding manage.py), e.g. "
                             "/opt/netbox/netbox")
    parser.add_argument("--python", metavar="PATH",
                        help="load: NetBox's Python (default: DIR/../venv/bin/python, as "
                             "NetBox's install guide makes it)")


def run(args) -> int:
    if args.action == "load":
        from planner.commands._netbox_load import run_load
        return run_load(Path(args.plan), args.netbox, args.python)
    for flag, value in (("--url", args.url), ("--token-file", args.token_file)):
        if not value:
            raise InputError(f"{flag}: 'planner netbox push' needs --url and --token-file")
    return run_push(args)


def run_push(args) -> int:
    from planner.run import progress
    from planner.commands._netbox_api import Client
    import sys
    from planner.run import interrupts
    bundle = read_bundle(Path(args.plan))
    client = Client(args.url, read_token(Path(args.token_file)))
    state = Push(bundle, client, progress.auto())
    try:
        counts = push(bundle, client, state=state)
    except KeyboardInterrupt as stop:  # whole batches are in NetBox: say so, not "nothing"
        signum = interrupts.signal_of(stop)
        done = sum(v for k, v in state.counts.items() if k != "unchanged")
        print(f"planner netbox: {interrupts.describe(signum)} after {done:,} objects written "
              "in whole batches; run the same push again to go on", file=sys.stderr)
        return interrupts.exit_code(signum)
    finally:
        client.close()
    written = sum(v for k, v in counts.items() if k != "unchanged")
    print(f"netbox: site {bundle.site['name']} at {args.url}: "
          + ", ".join(f"{k} {v:,}" for k, v in counts.items())
          + ("" if written else " (NetBox already held this plan)"))
    return 0


# --- the plan's side ------------------------------------------------------------------------

@dataclass
class Bundle:
    """The rows of a plan's NetBox bundle (``planner.exports.netbox``), as text."""

    manufacturers: list[dict]
    roles: list[dict]
    device_types: list[dict]
    site: dict
    locations: list[dict]
    racks: list[dict]
    devices: list[dict]
    cables: list[dict]


def read_token(path: Path) -> str:
    try:
        token = path.read_text(encoding="utf-8").strip()
    except OSError as err:
        raise InputError(f"--token-file {path}: cannot read it ({err.strerror}); put a NetBox "
                         "API token in a file") from None
    if not token or any(c.isspace() for c in token):
        raise InputError(f"--token-file {path}: expected one NetBox API token on one line")
    return token


def read_bundle(plan_dir: Path) -> Bundle:
    """The bundle in ``plan_dir/netbox/``; InputError naming the file when one is missing."""
    import pandas as pd
    import yaml
    from planner.exports import netbox as export
    folder = plan_dir / export.FOLDER
    if not folder.is_dir():
        raise InputError(f"--plan {plan_dir}: no {export.FOLDER}/ folder; give a folder "
                         "written by 'planner plan'")

    def table(name: str) -> list[dict]:
        path = folder / name
        try:
            frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
        except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError) as err:
            raise InputError(f"--plan: {path} is missing or not a CSV file ({err}); write the "
                             "plan again with 'planner plan'") from None
        return frame.to_dict("records")

    types = [yaml.safe_load(p.read_text(encoding="utf-8"))
             for p in sorted(folder.glob("device-types/*/*.yaml"))]
    sites = table("sites.csv")
    if len(sites) != 1:
        raise InputError(f"--plan: {folder / 'sites.csv'} must hold one site, has {len(sites)}")
    return Bundle(table("manufacturers.csv"), table("device_roles.csv"), types, sites[0],
                  table("locations.csv"), table("racks.csv"), table("devices.csv"),
                  table("cables.csv"))


# --- comparing ------------------------------------------------------------------------------

def plain(value):
    """A field as NetBox returns it, reduced to what the bundle writes: a choice to its value,
    a related object to its id, a number to float, None to ''."""
    if isinstance(value, dict):
        return value.get("value", value.get("id"))
    if value is None:
        return ""
    return value


def same(have, want) -> bool:
    have = plain(have)
    if isinstance(want, (int, float)) and not isinstance(want, bool) or want is None:
        if want is None or have == "":
            return want is None and have == ""
        return math.isclose(float(have), float(want), rel_tol=0, abs_tol=1e-6)
    return str(have) == str(want)


def changes(have: dict, want: dict) -> dict:
    """The fields of ``want`` that differ in ``have``."""
    return {k: v for k, v in want.items() if not same(have.get(k), v)}


def number(text: str):
    """A CSV number cell as JSON (None when empty)."""
    if text == "":
        return None
    value = float(text)
    return int(value) if value == int(value) else value


def tagged(obj: dict, tag_id: int) -> bool:
    return any(plain(t) == tag_id or (isinstance(t, dict) and t.get("slug") == TAG["slug"])
               for t in obj.get("tags") or [])


# --- the push -------------------------------------------------------------------------------

@dataclass
class Writes:
    """What one kind needs: new rows, (id, changes) to update, ids to delete."""

    create: list[dict] = field(default_factory=list)
    update: list[dict] = field(default_factory=list)
    delete: list[int] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.create) + len(self.update) + len(self.delete)


class Push:
    """One push of ``bundle`` into NetBox through ``client``; ``mode`` the progress mode."""

    def __init__(self, bundle: Bundle, client, mode):
        self.bundle, self.client, self.mode = bundle, client, mode
        self.counts = {"created": 0, "updated": 0, "deleted": 0, "unchanged": 0}
        self.clashes: list[str] = []
        self.tag_id = None

    # writing, in batches with a progress counter
    def write(self, what: str, path: str, writes: Writes, *, deletes: bool = True,
              in_flight: int = IN_FLIGHT) -> list[dict]:
        """Deletes, then updates, then creates of one kind, each in batches of ``BATCH``
        objects with ``in_flight`` batches at once; the created objects in the order of
        ``writes.create``, whatever order NetBox finishes them in."""
        from planner.run.progress import Counter
        size = BATCH.get(what, BATCH["default"])
        total = len(writes.create) + len(writes.update) + (len(writes.delete) if deletes else 0)
        made: list[dict] = []
        if not total:
            return made
        counter = Counter("netbox push", what, total, self.mode)
        c = self.client
        steps = ((("deleted", lambda rows: c.delete(path, rows), writes.delete if deletes else []),
                  ("updated", lambda rows: c.update(path, rows), writes.update),
                  ("created", lambda rows: c.create(path, rows), writes.create)))
        try:
            for kind, call, rows in steps:
                batches = [rows[i:i + size] for i in range(0, len(rows), size)]
                for batch, answer in c.each(call, batches, in_flight):
                    if kind == "created":
                        made += answer
                    self._count(kind, counter, len(batch))
        finally:
            counter.close()
        return made

    def _count(self, kind: str, counter, n: int) -> None:
        self.counts[kind] += n
        counter.update(n)

    def clash(self, text: str) -> None:
        self.clashes.append(text)

    def refuse_clashes(self) -> None:
        if self.clashes:
            shown = "; ".join(self.clashes[:CLASHES_SHOWN])
            more = (f" and {len(self.clashes) - CLASHES_SHOWN:,} more"
                    if len(self.clashes) > CLASHES_SHOWN else "")
            raise InputError(f"NetBox at {self.client.url} already holds objects of this plan's "
                             f"names that 'planner netbox push' did not make (no tag "
                             f"'{TAG['slug']}'): {shown}{more}; rename or delete them, or "
                             "name the site differently in the bundle")

    def keep(self, have: dict, want: dict, writes: Writes) -> None:
        diff = changes(have, want)
        if diff:
            writes.update.append({"id": have["id"], **diff})
        else:
            self.counts["unchanged"] += 1


def push(bundle: Bundle, client, mode=None, state: Push | None = None) -> dict[str, int]:
    """Make NetBox hold ``bundle``; the counts of objects created, updated, deleted and left
    unchanged (also in ``state.counts`` as they go, when given). Refuses (InputError) a NetBox
    older than 4.5 or a clash, before writing."""
    from planner.commands._netbox_api import NetBoxRefused
    try:
        return _push(state or Push(bundle, client, mode))
    except NetBoxRefused as err:
        if err.status in (401, 403):
            raise InputError(f"--token-file: NetBox at {client.url} refused the token "
                             f"(HTTP {err.status}); give a token with write permission") from None
        raise InputError(f"NetBox at {client.url} refused {err}; the objects written before "
                         "stay, fix the cause and push again to go on") from None


def _push(p: Push) -> dict[str, int]:
    client, bundle = p.client, p.bundle
    version = client.version()
    if tuple(int(x) for x in version.split(".")[:2] if x.isdigit()) < MIN_VERSION:
        raise InputError(f"--url: NetBox {version} at {client.url} is too old; the plan needs "
                         f"NetBox {MIN_VERSION[0]}.{MIN_VERSION[1]} or later (port mappings of "
                         "patch panels)")
    # read and check everything first: a clash stops the push before it writes
    tags = [t for t in client.read("extras/tags/", slug=TAG["slug"])]
    p.tag_id = tags[0]["id"] if tags else None
    site = _find_site(p)
    state = _read_site(p, site) if site else None
    types = _check_device_types(p)
    if state:
        _check_site_objects(p, state)
    p.refuse_clashes()

    if p.tag_id is None:
        p.tag_id = p.write("tags", "extras/tags/", Writes(create=[dict(TAG)]))[0]["id"]
    tag = [p.tag_id]
    makers = _named(p, "manufacturers", "dcim/manufacturers/", bundle.manufacturers,
                    ("name", "slug", "description"), tag)
    roles = _named(p, "device roles", "dcim/device-roles/", bundle.roles,
                   ("name", "slug", "color", "description"), tag)
    type_ids = _push_device_types(p, types, makers, tag)
    if site is None:
        s = bundle.site
        site = p.write("sites", "dcim/sites/", Writes(create=[{
            "name": s["name"], "slug": s["slug"], "status": s["status"],
            "description": s["description"], "tags": tag}]))[0]
        state = {"locations": [], "racks": [], "devices": [], "cables": []}
    else:
        p.counts["unchanged"] += 1
    site_id = site["id"]
    loc_ids = _push_locations(p, site_id, state["locations"], tag)
    rack_ids = _push_racks(p, site_id, state["racks"], loc_ids, tag)
    stale_devices = _push_devices(p, site_id, state["devices"], loc_ids, rack_ids, roles,
                                  type_ids, tag)
    _push_cables(p, site_id, state["cables"], tag)
    # what the plan no longer has, now that no cable holds it
    p.write("devices", "dcim/devices/", Writes(delete=stale_devices))
    p.write("racks", "dcim/racks/", Writes(delete=[
        r["id"] for r in state["racks"] if r["name"] not in rack_ids]))
    p.write("locations", "dcim/locations/", Writes(delete=[
        r["id"] for r in state["locations"] if r["name"] not in loc_ids]))
    return p.counts


def _find_site(p: Push) -> dict | None:
    s = p.bundle.site
    found = {o["id"]: o for key in ("name", "slug")
             for o in p.client.read("dcim/sites/", **{key: s[key]})}
    for obj in found.values():
        if not tagged(obj, p.tag_id):
            p.clash(f"site '{obj['name']}'")
    return next(iter(found.values()), None) if not p.clashes else None


def _read_site(p: Push, site: dict) -> dict:
    c, sid = p.client, site["id"]
    return {
        "locations": c.read("dcim/locations/", site_id=sid,
                            fields="id,name,slug,status,description,tags"),
        "racks": c.read("dcim/racks/", site_id=sid,
                        fields="id,name,location,status,width,u_height,description,tags"),
        "devices": c.read("dcim/devices/", site_id=sid,
                          fields="id,name,role,device_type,location,rack,position,face,status,"
                                 "description,tags"),
        "cables": c.read("dcim/cables/", site_id=sid,
                         fields="id,a_terminations,b_terminations,type,status,label,color,"
                                "length,length_unit,description,tags"),
    }


def _check_site_objects(p: Push, state: dict) -> None:
    want = {"location": {r["name"] for r in p.bundle.locations},
            "rack": {r["name"] for r in p.bundle.racks},
            "device": {r["name"] for r in p.bundle.devices}}
    for kind, rows in (("location", state["locations"]), ("rack", state["racks"]),
                       ("device", state["devices"])):
        for obj in rows:
            if obj["name"] in want[kind] and not tagged(obj, p.tag_id):
                p.clash(f"{kind} '{obj['name']}'")
    ends = {end for row in p.bundle.cables for end in _cable_ends(row)}
    for cable in state["cables"]:
        if tagged(cable, p.tag_id):
            continue
        held = [e for e in _terminations(cable) if e in ends]
        if held:
            kind, device, name = held[0]
            p.clash(f"cable #{cable['id']} on {device} {kind.split('.')[1]} {name}")


def _named(p: Push, what: str, path: str, rows: list[dict], fields, tag) -> dict[str, int]:
    """Shared objects by name or slug: create the missing ones; the id of each by name."""
    have = p.client.read(path, fields="id,name,slug")
    by_name = {o["name"]: o["id"] for o in have}
    by_slug = {o["slug"]: o["id"] for o in have}
    ids, writes = {}, Writes()
    for row in rows:
        known = by_name.get(row["name"], by_slug.get(row["slug"]))
        if known is None:
            writes.create.append({**{f: row[f] for f in fields}, "tags": tag})
        else:
            ids[row["name"]] = known
            p.counts["unchanged"] += 1
    for obj in p.write(what, path, writes):
        ids[obj["name"]] = obj["id"]
    return ids


TEMPLATE_KINDS = (("interfaces", "dcim/interface-templates/"),
                  ("power-ports", "dcim/power-port-templates/"),
                  ("rear-ports", "dcim/rear-port-templates/"),
                  ("front-ports", "dcim/front-port-templates/"))


def _check_device_types(p: Push) -> dict:
    """The device types NetBox already holds for the plan's models, by (manufacturer, model),
    each with the names of its port templates (a few reads for all types, not five a type);
    a clash when one without the tag lacks ports the plan uses."""
    models = sorted({doc["model"] for doc in p.bundle.device_types})
    held: dict[tuple[str, str], dict] = {}
    for i in range(0, len(models), FILTER_VALUES):
        for obj in p.client.read("dcim/device-types/", model=models[i:i + FILTER_VALUES],
                                 fields="id,model,slug,manufacturer,tags"):
            if plain(obj["manufacturer"]) is not None:
                held.setdefault((_maker_name(obj), obj["model"]), obj)
    wanted = [(doc, held[(doc["manufacturer"], doc["model"])]) for doc in p.bundle.device_types
              if (doc["manufacturer"], doc["model"]) in held]
    names = _template_names(p, [obj["id"] for _, obj in wanted])
    found = {}
    for doc, obj in wanted:
        have = names[obj["id"]]
        missing = {kind: sorted({t["name"] for t in doc.get(kind, [])} - have[kind])
                   for kind, _ in TEMPLATE_KINDS}
        missing = {k: v for k, v in missing.items() if v}
        if missing and not tagged(obj, p.tag_id):
            kind, shown = next(iter(missing.items()))
            p.clash(f"device type '{doc['manufacturer']} {doc['model']}' without {kind} "
                    f"{', '.join(shown[:3])}")
        found[(doc["manufacturer"], doc["model"])] = (obj, have)
    return found


def _maker_name(obj: dict) -> str:
    maker = obj.get("manufacturer")
    return maker.get("name", "") if isinstance(maker, dict) else ""


def _templates(p: Push, path: str, type_ids: list[int]) -> list[dict]:
    """The templates at ``path`` of the device types ``type_ids``, a few reads for all."""
    out = []
    for i in range(0, len(type_ids), FILTER_VALUES):
        out += p.client.read(path, device_type_id=type_ids[i:i + FILTER_VALUES],
                             fields="id,name,device_type")
    return out


def _template_names(p: Push, type_ids: list[int]) -> dict[int, dict[str, set[str]]]:
    """The port template names of each device type, by kind."""
    out = {i: {kind: set() for kind, _ in TEMPLATE_KINDS} for i in type_ids}
    for kind, path in TEMPLATE_KINDS:
        for t in _templates(p, path, type_ids):
            out[plain(t["device_type"])][kind].add(t["name"])
    return out


def _push_device_types(p: Push, found: dict, makers: dict, tag) -> dict[str, int]:
    """Create the missing device types and the missing templates of tagged ones, each kind of
    template in bulk for all types at once; the id of each type by model."""
    new = [doc for doc in p.bundle.device_types
           if (doc["manufacturer"], doc["model"]) not in found]
    made = p.write("device types", "dcim/device-types/", Writes(create=[{
        "manufacturer": makers[doc["manufacturer"]], "model": doc["model"], "slug": doc["slug"],
        "part_number": doc.get("part_number", ""), "u_height": doc["u_height"],
        "is_full_depth": doc["is_full_depth"], "comments": doc.get("comments", ""),
        "tags": tag} for doc in new]))
    for doc, obj in zip(new, made):
        found[(doc["manufacturer"], doc["model"])] = (obj, {k: set() for k, _ in TEMPLATE_KINDS})
    types = [(doc, *found[(doc["manufacturer"], doc["model"])]) for doc in p.bundle.device_types]

    def rows(kind: str, keys) -> list[dict]:
        return [{"device_type": obj["id"], **{k: t[k] for k in keys if k in t}}
                for doc, obj, have in types for t in doc.get(kind, [])
                if t["name"] not in have[kind]]

    p.write("port templates", "dcim/interface-templates/",
            Writes(create=rows("interfaces", ("name", "type"))))
    p.write("port templates", "dcim/power-port-templates/",
            Writes(create=rows("power-ports", ("name", "type", "maximum_draw"))))
    p.write("port templates", "dcim/rear-port-templates/",
            Writes(create=rows("rear-ports", ("name", "type", "positions"))))
    fronts = rows("front-ports", ("name", "type", "positions"))
    if fronts:
        with_fronts = sorted({row["device_type"] for row in fronts})
        rears = {(plain(t["device_type"]), t["name"]): t["id"] for t in _templates(
            p, "dcim/rear-port-templates/", with_fronts)}
        mapped: dict[tuple[int, str], list] = {}
        for doc, obj, _ in types:
            if obj["id"] not in with_fronts:  # a type that has its front ports already
                continue
            for m in doc.get("port-mappings", []):
                mapped.setdefault((obj["id"], m["front_port"]), []).append({
                    "position": m["front_port_position"],
                    "rear_port": rears[(obj["id"], m["rear_port"])],
                    "rear_port_position": m["rear_port_position"]})
        for row in fronts:
            row["rear_ports"] = mapped.get((row["device_type"], row["name"]), [])
        p.write("port templates", "dcim/front-port-templates/", Writes(create=fronts))
    return {doc["model"]: obj["id"] for doc, obj, _ in types}


def _push_locations(p: Push, site_id: int, have: list[dict], tag) -> dict[str, int]:
    existing = {o["name"]: o for o in have}
    writes, ids = Writes(), {}
    for row in p.bundle.locations:
        want = {"name": row["name"], "slug": row["slug"], "status": row["status"],
                "description": row["description"]}
        if row["name"] in existing:
            ids[row["name"]] = existing[row["name"]]["id"]
            p.keep(existing[row["name"]], want, writes)
        else:
            writes.create.append({**want, "site": site_id, "tags": tag})
    for obj in p.write("locations", "dcim/locations/", writes, deletes=False):
        ids[obj["name"]] = obj["id"]
    return ids


def _push_racks(p: Push, site_id: int, have: list[dict], locations: dict, tag) -> dict[str, int]:
    existing = {o["name"]: o for o in have}
    writes, ids = Writes(), {}
    for row in p.bundle.racks:
        want = {"location": locations[row["location"]], "status": row["status"],
                "width": number(row["width"]), "u_height": number(row["u_height"]),
                "description": row["description"]}
        if row["name"] in existing:
            ids[row["name"]] = existing[row["name"]]["id"]
            p.keep(existing[row["name"]], want, writes)
        else:
            writes.create.append({**want, "name": row["name"], "site": site_id, "tags": tag})
    for obj in p.write("racks", "dcim/racks/", writes, deletes=False):
        ids[obj["name"]] = obj["id"]
    return ids


def _push_devices(p: Push, site_id: int, have: list[dict], locations: dict, racks: dict,
                  roles: dict, types: dict, tag) -> list[int]:
    """Create, move and rewrite devices; the ids of tagged devices the plan no longer has (to
    delete once their cables are gone). A device whose type changed is made anew."""
    existing = {o["name"]: o for o in have}
    writes, moves, replaced = Writes(), [], []
    for row in p.bundle.devices:
        position = number(row["position"])
        want = {"role": roles[row["role"]], "device_type": types[row["device_type"]],
                "location": locations[row["location"]], "rack": racks[row["rack"]],
                "position": position, "face": row["face"], "status": row["status"],
                "description": row["description"]}
        old = existing.get(row["name"])
        if old is not None and same(old.get("device_type"), want["device_type"]):
            diff = changes(old, want)
            if {"rack", "position", "face"} & diff.keys() and old.get("position") is not None:
                moves.append({"id": old["id"], "position": None, "face": ""})
                diff.update({k: want[k] for k in ("rack", "position", "face")})
            if diff:
                writes.update.append({"id": old["id"], **diff})
            else:
                p.counts["unchanged"] += 1
            continue
        if old is not None:
            replaced.append(old["id"])
        writes.create.append({**{k: v for k, v in want.items() if v is not None},
                              "name": row["name"], "site": site_id, "tags": tag})
    names = {r["name"] for r in p.bundle.devices}
    stale = [o["id"] for o in have if o["name"] not in names]
    # devices made anew, and moved devices out of the units they held, before the rest
    p.write("devices", "dcim/devices/", Writes(delete=replaced))
    p.write("devices", "dcim/devices/", Writes(update=moves))
    p.counts["updated"] -= len(moves)
    p.write("devices", "dcim/devices/", writes)
    return stale


def _cable_ends(row: dict) -> tuple[tuple[str, str, str], tuple[str, str, str]]:
    return ((row["side_a_type"], row["side_a_device"], row["side_a_name"]),
            (row["side_b_type"], row["side_b_device"], row["side_b_name"]))


def _terminations(cable: dict) -> list[tuple[str, str, str]]:
    out = []
    for side in ("a_terminations", "b_terminations"):
        for t in cable.get(side) or []:
            obj = t.get("object") or {}
            device = obj.get("device") or {}
            out.append((t["object_type"], device.get("name", ""), obj.get("name", "")))
    return out


def _cable_key(cable: dict) -> tuple:
    a = [t for t in _terminations({"a_terminations": cable.get("a_terminations")})]
    b = [t for t in _terminations({"b_terminations": cable.get("b_terminations")})]
    return tuple(sorted((tuple(sorted(a)), tuple(sorted(b)))))


def _push_cables(p: Push, site_id: int, have: list[dict], tag) -> None:
    """Cables by their two ends: rewrite changed fields, delete tagged cables the plan no longer
    has (before creating, so their ports are free), create the rest.

    Cables between two interfaces go ``IN_FLIGHT`` batches at once; so do cords, in rounds that
    never hold both cords of one path (``planner.commands._netbox_paths``), after the trunks.
    Any other write of a cable on a panel port goes one batch at a time: NetBox traces the
    paths through a panel as it saves a cable there."""
    from planner.commands._netbox_paths import cord_rounds
    ports = {}
    for kind, path in PORT_ENDPOINTS.items():
        for obj in p.client.read(path, site_id=site_id, fields="id,name,device"):
            ports[(kind, plain_name(obj.get("device")), obj["name"])] = obj["id"]
    rounds = cord_rounds(p.bundle.devices, p.bundle.device_types, p.bundle.cables)
    existing = {_cable_key(c): c for c in have if tagged(c, p.tag_id)}
    direct, panel, wanted = Writes(), Writes(), set()
    cords: dict[int, list[dict]] = {}
    for i, row in enumerate(p.bundle.cables):
        a, b = _cable_ends(row)
        writes = direct if a[0] == b[0] == "dcim.interface" else panel
        key = tuple(sorted(((a,), (b,))))
        wanted.add(key)
        want = {f: (number(row[f]) if f == "length" else row[f]) for f in CABLE_FIELDS}
        if key in existing:
            p.keep(existing[key], want, writes)
            continue
        missing = [end for end in (a, b) if end not in ports]
        if missing:
            kind, device, name = missing[0]
            raise InputError(f"NetBox has no {kind.split('.')[1]} '{name}' on device '{device}' "
                             "of this plan's site; its device type lacks the port: delete the "
                             "device type (or the device) in NetBox and push again")
        new = {"a_terminations": [{"object_type": a[0], "object_id": ports[a]}],
               "b_terminations": [{"object_type": b[0], "object_id": ports[b]}],
               **{k: v for k, v in want.items() if v not in (None, "")}, "tags": tag}
        (cords.setdefault(rounds[i], []) if i in rounds else writes.create).append(new)
    for key, cable in existing.items():
        if key not in wanted:
            ends = {kind for kind, _, _ in _terminations(cable)}
            (direct if ends == {"dcim.interface"} else panel).delete.append(cable["id"])
    p.write("cables", "dcim/cables/", Writes(delete=direct.delete))
    p.write("cables", "dcim/cables/", Writes(delete=panel.delete), in_flight=1)
    p.write("cables", "dcim/cables/", Writes(update=direct.update, create=direct.create))
    p.write("cables", "dcim/cables/", Writes(update=panel.update, create=panel.create),
            in_flight=1)
    for r in sorted(cords):
        p.write("cables", "dcim/cables/", Writes(create=cords[r]))


def plain_name(obj) -> str:
    return obj.get("name", "") if isinstance(obj, dict) else ""
