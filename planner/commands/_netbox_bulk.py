"""Bulk loader of a plan's NetBox bundle, run inside NetBox with its own Python and ORM.

``planner netbox load --plan DIR --netbox NETBOX_DIR`` runs this file with NetBox's Python
(``python _netbox_bulk.py BUNDLE`` in NetBox's ``netbox/`` folder, where ``manage.py`` is), so
it imports only the standard library, PyYAML and NetBox (Django) itself: the planner need not
be installed on the NetBox host.

Why: through the REST API NetBox spends about 0.25 CPU seconds per object it writes (a change
record, a search entry, components instantiated one device at a time, a path traced per cable
save; benchmarks/NETBOX.md). Here the new objects go in with ``bulk_create`` in large batches,
and what NetBox's ``save()`` would have done is done once for all of them, the way NetBox's
own code does it:

- devices get their components from their type's templates (``template.instantiate``, as
  ``Device._instantiate_components`` does) with the cached ``_site``, ``_location``, ``_rack``,
  and their panels' front-to-rear port mappings (as ``dcim.utils.create_port_mappings``);
- the counter fields (``interface_count``, ...) are recounted as ``utilities.counters.
  update_counts`` does;
- cables get their terminations with the cached ``_device``, ``_rack``, ``_location``,
  ``_site`` (``CableTermination.cache_related_objects``), the ports their ``cable`` and
  ``cable_end`` (``set_cable_termination``), and ``_abs_length`` (``Cable.save``);
- every interface with a cable and no path, and every path that no longer ends on an
  interface, is traced with NetBox's ``dcim.utils.create_cablepaths`` (what ``manage.py
  trace_paths`` does), after all cables are in, so no two cords of one path race;
- the new objects are put in NetBox's search cache (what ``manage.py reindex`` does).

No change records are written for the bulk-created objects (NetBox writes them per request);
everything made carries the tag ``planner``. Objects that exist are compared field by field and
changed with NetBox's ordinary ``save()``/``delete()`` (a re-plan's differences are few), so
NetBox's signals do their work on them. The clash rules are those of the REST push: an object of
the plan's names in the site without the tag stops the load before it writes, naming up to ten.

Each step commits on its own (one transaction per step and kind); a load stopped half-way
leaves whole steps, and the next load reads what is there and goes on. A second load of the
same bundle writes nothing.
"""

from __future__ import annotations

import csv
import sys
import time
from decimal import Decimal
from pathlib import Path

TAG = {"name": "planner", "slug": "planner", "color": "2196f3",
       "description": "made by planner netbox push"}
CLASHES_SHOWN = 10
BATCH = 5000
"""Rows per bulk INSERT/UPDATE statement: large enough that PostgreSQL's per-statement cost
vanishes, small enough to keep one statement's parameters well under PostgreSQL's 65,535."""
PORT_KINDS = {"dcim.interface": "interfaces", "dcim.frontport": "front-ports",
              "dcim.rearport": "rear-ports", "dcim.powerport": "power-ports"}
CABLE_FIELDS = ("type", "status", "label", "color", "length", "length_unit", "description")
EXIT_CLASH = 2


class Refused(Exception):
    """The bundle cannot go in as it is: one line naming the objects and the fix."""


# --- the bundle (no NetBox needed) ----------------------------------------------------------

def read_table(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8-sig") as f:
        return list(csv.DictReader(f))


def read_bundle(folder: Path) -> dict:
    """The bundle's rows: tables by file stem, ``device_types`` the YAML documents."""
    import yaml
    out = {name: read_table(folder / f"{name}.csv")
           for name in ("manufacturers", "device_roles", "sites", "locations", "racks",
                        "devices", "cables")}
    out["device_types"] = [yaml.safe_load(p.read_text(encoding="utf-8"))
                           for p in sorted(folder.glob("device-types/*/*.yaml"))]
    if len(out["sites"]) != 1:
        raise Refused(f"{folder / 'sites.csv'} must hold one site, has {len(out['sites'])}")
    return out


def cable_ends(row: dict) -> tuple[tuple[str, str, str], tuple[str, str, str]]:
    """A cable row's two ends as (kind, device, port name)."""
    return ((row["side_a_type"], row["side_a_device"], row["side_a_name"]),
            (row["side_b_type"], row["side_b_device"], row["side_b_name"]))


def cable_key(a: tuple, b: tuple) -> tuple:
    """A cable by its two ends, whichever is A."""
    return tuple(sorted((a, b)))


def number(text: str):
    """A CSV number cell (None when empty), as Decimal for NetBox's decimal fields."""
    return None if text in ("", None) else Decimal(text)


def device_ports(bundle: dict) -> dict[tuple[str, str, str], str]:
    """Every port the plan's devices get from their types' templates: (kind, device, name) ->
    the device's model."""
    kinds = {doc["model"]: {kind: [t["name"] for t in doc.get(key, [])]
                            for kind, key in PORT_KINDS.items()}
             for doc in bundle["device_types"]}
    out = {}
    for d in bundle["devices"]:
        for kind, names in kinds[d["device_type"]].items():
            for name in names:
                out[(kind, d["name"], name)] = d["device_type"]
    return out


def check_cables(bundle: dict) -> list[tuple[tuple, tuple, dict]]:
    """The plan's cables as (a end, b end, row); Refused when a cable lands on a port its
    device's type does not have, or two cables on one port."""
    ports, used, out = device_ports(bundle), {}, []
    for i, row in enumerate(bundle["cables"]):
        a, b = cable_ends(row)
        for end in (a, b):
            if end not in ports:
                raise Refused(f"cables.csv row {i + 2}: no {end[0].split('.')[1]} '{end[2]}' on "
                              f"device '{end[1]}' in its device type; write the plan again")
            if end in used:
                raise Refused(f"cables.csv rows {used[end] + 2} and {i + 2} both land on "
                              f"{end[1]} {end[2]}; write the plan again")
            used[end] = i
        out.append((a, b, row))
    return out


def cable_fields(row: dict) -> dict:
    """A cable row's own fields as NetBox stores them."""
    out = {f: row[f] for f in CABLE_FIELDS}
    out["length"] = number(row["length"])
    out["type"] = out["type"] or None
    out["length_unit"] = out["length_unit"] or None if out["length"] is not None else None
    return out


def to_meters(length: Decimal, unit: str | None) -> Decimal | None:
    """NetBox's ``_abs_length``: the length in metres (``dcim.utils``/``utilities.conversion``
    factors for the units the bundle writes)."""
    factor = {"m": Decimal(1), "cm": Decimal("0.01"), "km": Decimal(1000),
              "ft": Decimal("0.3048"), "in": Decimal("0.0254")}
    if length is None or not unit:
        return None
    return length * factor[unit]


# --- inside NetBox --------------------------------------------------------------------------

def say(text: str) -> None:
    print(f"netbox load: {text}", flush=True)


class Step:
    """A timed step: prints 'N kind done (S s)' as the REST push does."""

    def __init__(self, what: str):
        self.what, self.start = what, time.perf_counter()

    def done(self, n: int) -> None:
        if n:
            say(f"{n}/{n} {self.what} done ({time.perf_counter() - self.start:.1f} s)")


def setup_django(netbox_dir: Path) -> None:
    import os
    sys.path.insert(0, str(netbox_dir))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "netbox.settings")
    import django
    django.setup()


def bulk(model, rows: list) -> list:
    """``bulk_create`` in batches; the created objects (with ids: PostgreSQL returns them)."""
    out = []
    for i in range(0, len(rows), BATCH):
        out += model.objects.bulk_create(rows[i:i + BATCH])
    return out


def update_rows(model, columns: tuple[str, ...], rows: list[tuple]) -> None:
    """Set ``columns`` of ``model`` rows by id: ``rows`` are (id, value, ...). One ``UPDATE ...
    FROM (VALUES ...)`` per batch; Django's ``bulk_update`` builds a CASE per row and object,
    which costs more Python than the whole load of the rows."""
    from django.db import connection
    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(connection.ops.quote_name(c) for c in columns)
    sets = ", ".join(f"{connection.ops.quote_name(c)} = v.{connection.ops.quote_name(c)}"
                     for c in columns)
    casts = [model._meta.get_field(c).db_type(connection) for c in columns]
    with connection.cursor() as cursor:
        for i in range(0, len(rows), BATCH):
            part = rows[i:i + BATCH]
            values = ", ".join(["(%s::bigint, " + ", ".join(f"%s::{t}" for t in casts) + ")"]
                               * len(part))
            cursor.execute(f"UPDATE {table} AS t SET {sets} FROM (VALUES {values}) AS v(id, "
                           f"{names}) WHERE t.id = v.id", [x for row in part for x in row])


def tag_all(tag, objs: list) -> None:
    """Tag ``objs`` (one model) with ``tag`` in bulk (taggit's through model)."""
    from django.contrib.contenttypes.models import ContentType
    from extras.models import TaggedItem
    if not objs:
        return
    ct = ContentType.objects.get_for_model(type(objs[0]))
    bulk(TaggedItem, [TaggedItem(tag=tag, content_type=ct, object_id=o.pk) for o in objs])


def tagged_ids(model, tag, ids=None) -> set[int]:
    """The ids of ``model`` objects (of ``ids``, or all) carrying ``tag``."""
    from django.contrib.contenttypes.models import ContentType
    from extras.models import TaggedItem
    if tag is None:
        return set()
    ct = ContentType.objects.get_for_model(model)
    found = TaggedItem.objects.filter(tag=tag, content_type=ct)
    if ids is not None:
        found = found.filter(object_id__in=list(ids))
    return set(found.values_list("object_id", flat=True))


class Load:
    """One load of ``bundle`` into this NetBox."""

    def __init__(self, bundle: dict):
        self.b = bundle
        self.counts = {"created": 0, "updated": 0, "deleted": 0, "unchanged": 0}
        self.clashes: list[str] = []

    def count(self, kind: str, n: int) -> None:
        self.counts[kind] += n

    # checks first: nothing is written when something clashes
    def check(self) -> None:
        from dcim.models import Cable, Device, DeviceType, Location, Rack, Site
        from extras.models import Tag
        cables = check_cables(self.b)
        self.tag = Tag.objects.filter(slug=TAG["slug"]).first()
        s = self.b["sites"][0]
        self.site = (Site.objects.filter(name=s["name"]).first()
                     or Site.objects.filter(slug=s["slug"]).first())
        tagged = (lambda model, objs: tagged_ids(model, self.tag, [o.pk for o in objs])
                  if len(objs) < 1000 else tagged_ids(model, self.tag))
        if self.site and self.site.pk not in tagged(Site, [self.site]):
            self.clashes.append(f"site '{self.site.name}'")
        for doc in self.b["device_types"]:
            dt = DeviceType.objects.filter(manufacturer__name=doc["manufacturer"],
                                           model=doc["model"]).first()
            if dt and dt.pk not in tagged(DeviceType, [dt]):
                missing = self._missing_templates(dt, doc)
                if missing:
                    self.clashes.append(f"device type '{doc['manufacturer']} {doc['model']}' "
                                        f"without {missing}")
        if self.site and not self.clashes:
            for model, rows, kind in ((Location, "locations", "location"),
                                      (Rack, "racks", "rack"), (Device, "devices", "device")):
                names = {r["name"] for r in self.b[rows]}
                objs = [o for o in model.objects.filter(site=self.site) if o.name in names]
                ok = tagged(model, objs)
                self.clashes += [f"{kind} '{o.name}'" for o in objs if o.pk not in ok]
            ends = {end for a, b, _ in cables for end in (a, b)}
            ok = tagged_ids(Cable, self.tag)
            held = Cable.objects.filter(terminations___site=self.site).distinct()
            for cable in held.iterator():
                if cable.pk in ok:
                    continue
                on = [e for e in self._ends(cable) if e in ends]
                if on:
                    self.clashes.append(f"cable #{cable.pk} on {on[0][1]} "
                                        f"{on[0][0].split('.')[1]} {on[0][2]}")
        if self.clashes:
            shown = "; ".join(self.clashes[:CLASHES_SHOWN])
            more = (f" and {len(self.clashes) - CLASHES_SHOWN:,} more"
                    if len(self.clashes) > CLASHES_SHOWN else "")
            raise Refused(f"NetBox already holds objects of this plan's names that planner did "
                          f"not make (no tag '{TAG['slug']}'): {shown}{more}; rename or delete "
                          "them, or name the site differently in the bundle")
        self.cables = cables

    @staticmethod
    def _ends(cable) -> list[tuple[str, str, str]]:
        out = []
        for t in cable.terminations.all():
            obj = t.termination
            device = getattr(obj, "device", None)
            out.append((f"dcim.{t.termination_type.model}", getattr(device, "name", ""),
                        getattr(obj, "name", "")))
        return out

    @staticmethod
    def _missing_templates(dt, doc) -> str:
        have = {"interfaces": set(dt.interfacetemplates.values_list("name", flat=True)),
                "front-ports": set(dt.frontporttemplates.values_list("name", flat=True)),
                "rear-ports": set(dt.rearporttemplates.values_list("name", flat=True)),
                "power-ports": set(dt.powerporttemplates.values_list("name", flat=True))}
        for key, names in have.items():
            lack = sorted({t["name"] for t in doc.get(key, [])} - names)
            if lack:
                return f"{key} {', '.join(lack[:3])}"
        return ""

    # the shared objects: few, NetBox's own save()
    def shared(self) -> None:
        from django.db import transaction
        from dcim.models import DeviceRole, Manufacturer
        from extras.models import Tag
        with transaction.atomic():
            if self.tag is None:
                self.tag = Tag.objects.create(**TAG)
                self.count("created", 1)
            self.makers = self._named(Manufacturer, self.b["manufacturers"],
                                      ("name", "slug", "description"))
            self.roles = self._named(DeviceRole, self.b["device_roles"],
                                     ("name", "slug", "color", "description"))
        self.types = self._device_types()

    def _named(self, model, rows, fields) -> dict[str, object]:
        out = {}
        for row in rows:
            obj = (model.objects.filter(name=row["name"]).first()
                   or model.objects.filter(slug=row["slug"]).first())
            if obj is None:
                obj = model(**{f: row[f] for f in fields})
                obj.save()
                obj.tags.add(self.tag)
                self.count("created", 1)
            else:
                self.count("unchanged", 1)
            out[row["name"]] = obj
        return out

    def _device_types(self) -> dict[str, object]:
        """Device types by model; a missing one is made with its templates and port mappings
        in one transaction; a tagged one gets the templates it lacks."""
        from django.db import transaction
        from dcim.models import (DeviceType, FrontPortTemplate, InterfaceTemplate,
                                 PortTemplateMapping, PowerPortTemplate, RearPortTemplate)
        models = {"interfaces": (InterfaceTemplate, ("name", "type", "mgmt_only")),
                  "power-ports": (PowerPortTemplate, ("name", "type", "maximum_draw")),
                  "rear-ports": (RearPortTemplate, ("name", "type", "positions")),
                  "front-ports": (FrontPortTemplate, ("name", "type", "positions"))}
        out, step, made = {}, Step("device types and port templates"), 0
        for doc in self.b["device_types"]:
            with transaction.atomic():
                dt = DeviceType.objects.filter(manufacturer__name=doc["manufacturer"],
                                               model=doc["model"]).first()
                if dt is None:
                    dt = DeviceType(manufacturer=self.makers[doc["manufacturer"]],
                                    model=doc["model"], slug=doc["slug"],
                                    part_number=doc.get("part_number", ""),
                                    u_height=Decimal(str(doc["u_height"])),
                                    is_full_depth=doc["is_full_depth"],
                                    comments=doc.get("comments", ""))
                    dt.save()
                    dt.tags.add(self.tag)
                    made += 1
                else:
                    self.count("unchanged", 1)
                byname = {}
                for key in ("interfaces", "power-ports", "rear-ports", "front-ports"):
                    model, fields = models[key]
                    have = {t.name: t for t in model.objects.filter(device_type=dt)}
                    new = [model(device_type=dt, **{f: t[f] for f in fields if f in t})
                           for t in doc.get(key, []) if t["name"] not in have]
                    made += len(bulk(model, new))
                    byname[key] = {**have, **{t.name: t for t in new}}
                held = set(PortTemplateMapping.objects.filter(device_type=dt).values_list(
                    "front_port__name", "front_port_position"))
                mappings = [PortTemplateMapping(
                    device_type=dt, front_port=byname["front-ports"][m["front_port"]],
                    front_port_position=m["front_port_position"],
                    rear_port=byname["rear-ports"][m["rear_port"]],
                    rear_port_position=m["rear_port_position"])
                    for m in doc.get("port-mappings", [])
                    if (m["front_port"], m["front_port_position"]) not in held]
                bulk(PortTemplateMapping, mappings)
                recount(DeviceType, DeviceType.objects.filter(pk=dt.pk),
                        ("interface_template_count", "interfacetemplates"),
                        ("power_port_template_count", "powerporttemplates"),
                        ("rear_port_template_count", "rearporttemplates"),
                        ("front_port_template_count", "frontporttemplates"))
            out[doc["model"]] = dt
        self.count("created", made)
        step.done(made)
        return out

    # the site, its locations and racks
    def places(self) -> None:
        from django.db import transaction
        from dcim.models import Location, Rack, Site
        s = self.b["sites"][0]
        with transaction.atomic():
            if self.site is None:
                self.site = Site(name=s["name"], slug=s["slug"], status=s["status"],
                                 description=s["description"])
                self.site.save()
                self.site.tags.add(self.tag)
                self.count("created", 1)
            else:
                self.count("unchanged", 1)
            have = {o.name: o for o in Location.objects.filter(site=self.site)}
            self.locations = {}
            for row in self.b["locations"]:
                want = {"slug": row["slug"], "status": row["status"],
                        "description": row["description"]}
                obj = have.get(row["name"])
                if obj is None:
                    obj = Location(site=self.site, name=row["name"], **want)
                    obj.save()  # a tree (MPTT): NetBox's save, not bulk
                    obj.tags.add(self.tag)
                    self.count("created", 1)
                else:
                    self.keep(obj, want)
                self.locations[row["name"]] = obj
        step = Step("racks")
        with transaction.atomic():
            have = {o.name: o for o in Rack.objects.filter(site=self.site)}
            new = []
            for row in self.b["racks"]:
                want = {"location": self.locations[row["location"]], "status": row["status"],
                        "width": int(row["width"]), "u_height": int(row["u_height"]),
                        "description": row["description"]}
                if row["name"] in have:
                    self.keep(have[row["name"]], want)
                else:
                    new.append(Rack(site=self.site, name=row["name"], **want))
            tag_all(self.tag, bulk(Rack, new))
            self.count("created", len(new))
            self.new_racks = new
        step.done(len(new))
        self.racks = {o.name: o for o in Rack.objects.filter(site=self.site)}

    def keep(self, obj, want: dict) -> None:
        """Set the fields of ``want`` that differ and save with NetBox's save() (not
        ``full_clean``: a device moving into the units of one that moves later is valid once
        all have moved)."""
        diff = {k: v for k, v in want.items() if not same(held(obj, k, v), v)}
        if diff:
            for k, v in diff.items():
                setattr(obj, k, v)
            obj.save()
            self.count("updated", 1)
        else:
            self.count("unchanged", 1)

    # devices and their components
    def devices(self) -> None:
        from django.db import transaction
        from dcim.models import Device
        have = {o.name: o for o in Device.objects.filter(site=self.site)}
        new, replaced, kept = [], [], []
        for row in self.b["devices"]:
            position = number(row["position"])
            want = {"role": self.roles[row["role"]], "device_type": self.types[row["device_type"]],
                    "location": self.locations[row["location"]], "rack": self.racks[row["rack"]],
                    "position": position, "face": row["face"] if position is not None else "",
                    "status": row["status"], "description": row["description"]}
            old = have.get(row["name"])
            if old is not None and old.device_type_id == want["device_type"].pk:
                kept.append((old, want))
                continue
            if old is not None:
                replaced.append(old)
            dt = want["device_type"]
            new.append(Device(site=self.site, name=row["name"], airflow=dt.airflow,
                              platform=dt.default_platform, **want))
        names = {r["name"] for r in self.b["devices"]}
        with transaction.atomic():  # tagged devices the plan no longer has, first: their units are free
            stale = [o for o in have.values() if o.name not in names]
            ok = tagged_ids(Device, self.tag, [o.pk for o in stale])
            for obj in stale:
                if obj.pk in ok:
                    obj.delete()
                    self.count("deleted", 1)
        moves = [old.pk for old, want in kept if old.position is not None and any(
            not same(held(old, k, want[k]), want[k]) for k in ("rack", "position", "face"))]
        with transaction.atomic():
            for old in replaced:
                old.delete()
                self.count("deleted", 1)
            # moved devices leave their units first: a rack unit holds one device at a time
            Device.objects.filter(pk__in=moves).update(position=None, face="")
            for old, want in kept:
                if old.pk in moves:
                    old.position, old.face = None, ""
                self.keep(old, want)
        step = Step("devices")
        for i in range(0, len(new), BATCH):
            with transaction.atomic():  # a batch of devices with all their components
                part = bulk(Device, new[i:i + BATCH])
                tag_all(self.tag, part)
                self.components(part)
            self.count("created", len(part))
        step.done(len(new))

    def components(self, devices: list) -> None:
        """Each device's components from its type's templates, as ``Device.save`` makes them
        (``_instantiate_components``, ``create_port_mappings``), in bulk for all; then the
        devices' counter fields."""
        from dcim.models import (Device, FrontPort, Interface, PortMapping, PowerPort,
                                 RearPort)
        templates = {}
        for dt in {d.device_type_id: d.device_type for d in devices}.values():
            templates[dt.pk] = {
                "power": list(dt.powerporttemplates.all()),
                "interface": list(dt.interfacetemplates.all()),
                "rear": list(dt.rearporttemplates.all()),
                "front": list(dt.frontporttemplates.all()),
                "mappings": list(dt.port_mappings.select_related("front_port", "rear_port"))}
        made: dict[str, list] = {"power": [], "interface": [], "rear": [], "front": []}
        for d in devices:
            for kind in made:
                for t in templates[d.device_type_id][kind]:
                    c = t.instantiate(device=d)
                    c._site_id, c._location_id, c._rack_id = d.site_id, d.location_id, d.rack_id
                    made[kind].append(c)
        for kind, model in (("power", PowerPort), ("interface", Interface), ("rear", RearPort),
                            ("front", FrontPort)):
            bulk(model, made[kind])
        front = {(c.device_id, c.name): c for c in made["front"]}
        rear = {(c.device_id, c.name): c for c in made["rear"]}
        bulk(PortMapping, [
            PortMapping(device_id=d.pk, front_port=front[(d.pk, m.front_port.name)],
                        front_port_position=m.front_port_position,
                        rear_port=rear[(d.pk, m.rear_port.name)],
                        rear_port_position=m.rear_port_position)
            for d in devices for m in templates[d.device_type_id]["mappings"]])
        recount(Device, Device.objects.filter(pk__in=[d.pk for d in devices]),
                ("power_port_count", "powerports"), ("interface_count", "interfaces"),
                ("rear_port_count", "rearports"), ("front_port_count", "frontports"))

    # cables
    def _ports(self) -> tuple[dict, dict, dict]:
        """The site's ports, read as plain rows (a million model objects would not fit a small
        NetBox host at 100K endpoints): (kind, device, name) -> (id, device id), (content type,
        id) -> (kind, device, name), and the port models by kind; ``self.device_places`` the
        device id -> (rack, location, site) ids a cable termination caches."""
        from django.contrib.contenttypes.models import ContentType
        from dcim.models import Device, FrontPort, Interface, PowerPort, RearPort
        models = {"dcim.interface": Interface, "dcim.frontport": FrontPort,
                  "dcim.rearport": RearPort, "dcim.powerport": PowerPort}
        names, self.device_places = {}, {}
        for pk, name, rack, location, site in Device.objects.filter(site=self.site).values_list(
                "pk", "name", "rack_id", "location_id", "site_id"):
            names[pk] = name
            self.device_places[pk] = (rack, location, site)
        ports, by_id = {}, {}
        for kind, model in models.items():
            ct = ContentType.objects.get_for_model(model).pk
            for pk, device, name in model.objects.filter(device__site=self.site).values_list(
                    "pk", "device_id", "name"):
                ports[(kind, names[device], name)] = (pk, device)
                by_id[(ct, pk)] = (kind, names[device], name)
        return ports, by_id, models

    def remove_cables(self) -> None:
        """Read the site's tagged cables by their two ends; delete those the plan no longer
        has (before devices move or go, so their ports are free)."""
        from django.db import transaction
        from dcim.models import Cable, CableTermination
        _, by_id, _ = self._ports()
        tagged = tagged_ids(Cable, self.tag)
        ends: dict[int, list] = {}
        for cable, ct, pk in CableTermination.objects.filter(_site=self.site).order_by(
                "cable_id", "cable_end").values_list("cable_id", "termination_type_id",
                                                     "termination_id"):
            ends.setdefault(cable, []).append(by_id.get((ct, pk), ("", "", "")))
        held = {c.pk: c for c in Cable.objects.filter(pk__in=[c for c in ends if c in tagged])}
        existing = {(cable_key(*e) if len(e) == 2 else (pk,)): held[pk]
                    for pk, e in ends.items() if pk in held}
        wanted = {cable_key(a, b) for a, b, _ in self.cables}
        step = Step("cables removed")
        gone = [c for k, c in existing.items() if k not in wanted]
        with transaction.atomic():
            for cable in gone:
                cable.delete()  # NetBox's delete: frees its ports, retraces their paths
        self.count("deleted", len(gone))
        step.done(len(gone))
        self.existing_cables = {k: c for k, c in existing.items() if k in wanted}

    def cables_step(self) -> None:
        """Rewrite the plan's cables that differ; create the missing ones in bulk."""
        from django.db import transaction
        ports, _, models = self._ports()
        new = []
        for a, b, row in self.cables:
            key, want = cable_key(a, b), cable_fields(row)
            if key in self.existing_cables:
                self.keep(self.existing_cables[key], want)
            else:
                new.append((a, b, want))
        step = Step("cables")
        for i in range(0, len(new), BATCH):
            with transaction.atomic():
                self._new_cables(new[i:i + BATCH], ports, models)
            self.count("created", len(new[i:i + BATCH]))
        step.done(len(new))

    def _new_cables(self, new: list, ports: dict, models: dict) -> None:
        from django.contrib.contenttypes.models import ContentType
        from dcim.models import Cable, CableTermination
        cables = bulk(Cable, [Cable(profile="", _abs_length=to_meters(w["length"],
                                                                     w["length_unit"]), **w)
                              for _, _, w in new])
        tag_all(self.tag, cables)
        cts = {kind: ContentType.objects.get_for_model(m) for kind, m in models.items()}
        terms, touched = [], {kind: [] for kind in models}
        for cable, (a, b, _) in zip(cables, new):
            for end, side in ((a, "A"), (b, "B")):
                pk, device = ports[end]
                rack, location, site = self.device_places[device]
                terms.append(CableTermination(
                    cable=cable, cable_end=side, termination_type=cts[end[0]],
                    termination_id=pk, _device_id=device, _rack_id=rack,
                    _location_id=location, _site_id=site))
                touched[end[0]].append((pk, cable.pk, side))
        bulk(CableTermination, terms)
        for kind, rows in touched.items():
            update_rows(models[kind], ("cable_id", "cable_end"), rows)

    def paths(self) -> None:
        """NetBox's cable paths of the site, built at once from what the site holds: every
        interface (or power port) with a cable and no path, and every path that does not end on
        an interface (a cord added beside one already in) is traced in memory by ``trace``
        (NetBox's ``CablePath.from_origin``, step for step), then the paths go in with
        ``bulk_create`` and their origins' ``_path`` is set, as ``CablePath.save`` does."""
        from django.contrib.contenttypes.models import ContentType
        from django.db import transaction
        from dcim.models import (Cable, CablePath, CableTermination, FrontPort, Interface,
                                 PortMapping, PowerOutlet, PowerPort, RearPort)
        step = Step("paths traced")
        ct = {m: ContentType.objects.get_for_model(m).pk
              for m in (Cable, Interface, FrontPort, RearPort, PowerPort, PowerOutlet)}
        graph = Graph(ct[Cable], ct[FrontPort], ct[RearPort])
        for cable, end, kind, pk in CableTermination.objects.filter(_site=self.site).order_by(
                "cable_id", "cable_end", "connector", "pk").values_list(
                "cable_id", "cable_end", "termination_type_id", "termination_id"):
            graph.add_termination(cable, end, (kind, pk))
        graph.status = dict(Cable.objects.filter(pk__in=list(graph.ends)).values_list(
            "pk", "status"))
        for model in (FrontPort, RearPort):
            for pk, positions in model.objects.filter(device__site=self.site).values_list(
                    "pk", "positions"):
                graph.positions[(ct[model], pk)] = positions
        for row in PortMapping.objects.filter(device__site=self.site).order_by("pk").values_list(
                "front_port_id", "front_port_position", "rear_port_id", "rear_port_position"):
            graph.add_mapping(*row)
        with transaction.atomic():
            stale = CablePath.objects.filter(is_complete=False).filter(
                pk__in=Interface.objects.filter(device__site=self.site, _path__isnull=False)
                .values("_path"))
            redo = [(o, p) for o, p in Interface.objects.filter(_path__in=stale).values_list(
                "pk", "_path")]
            origins = [(ct[Interface], pk) for pk, _ in redo]
            CablePath.objects.filter(pk__in={p for _, p in redo}).delete()
            for model in (Interface, PowerPort):
                origins += [(ct[model], pk) for pk in model.objects.filter(
                    device__site=self.site, cable__isnull=False, _path__isnull=True)
                    .order_by("pk").values_list("pk", flat=True)]
            models, n = {ct[Interface]: Interface, ct[PowerPort]: PowerPort}, 0
            for i in range(0, len(origins), BATCH):
                made = []
                for origin in origins[i:i + BATCH]:
                    traced = graph.trace([origin])
                    if traced:
                        path, complete, active, split = traced
                        made.append(CablePath(path=path, is_complete=complete, is_active=active,
                                              is_split=split,
                                              _nodes=[n for hop in path for n in hop]))
                by_model = {}
                for cp in bulk(CablePath, made):
                    kind, pk = map(int, cp.path[0][0].split(":"))
                    by_model.setdefault(kind, []).append((pk, cp.pk))
                for kind, rows in by_model.items():
                    update_rows(models[kind], ("_path_id",), rows)
                n += len(made)
        step.done(n)

    def stale(self) -> None:
        """Tagged racks and locations of the site that the plan no longer has."""
        from django.db import transaction
        from dcim.models import Location, Rack
        with transaction.atomic():
            racks = {r["name"] for r in self.b["racks"]}
            locs = {r["name"] for r in self.b["locations"]}
            for model, names in ((Rack, racks), (Location, locs)):
                objs = [o for o in model.objects.filter(site=self.site) if o.name not in names]
                ok = tagged_ids(model, self.tag, [o.pk for o in objs])
                for obj in objs:
                    if obj.pk in ok:
                        obj.delete()
                        self.count("deleted", 1)

    def search_index(self) -> None:
        """The site's objects that are not in NetBox's search cache yet, put there as
        ``search_backend.cache`` does (``manage.py reindex``): each model's indexer gives an
        object's values; its object type and custom fields are looked up once per model, not
        once per object (two queries an object on NetBox 4.5)."""
        from core.models import ObjectType
        from dcim.models import Cable, Device, FrontPort, Interface, Rack, RearPort
        from extras.models import CachedValue, CustomField
        from netbox.registry import registry
        step, n = Step("search entries"), 0
        for model, objs in ((Rack, Rack.objects.filter(site=self.site)),
                            (Device, Device.objects.filter(site=self.site)),
                            (Interface, Interface.objects.filter(device__site=self.site)),
                            (FrontPort, FrontPort.objects.filter(device__site=self.site)),
                            (RearPort, RearPort.objects.filter(device__site=self.site)),
                            (Cable, Cable.objects.filter(terminations___site=self.site)
                             .distinct())):
            indexer = registry["search"].get(model._meta.label_lower)
            if indexer is None:
                continue
            object_type = ObjectType.objects.get_for_model(model)
            fields = [cf for cf in CustomField.objects.get_for_model(model) if cf.search_weight > 0]
            cached = set(CachedValue.objects.filter(object_type=object_type).values_list(
                "object_id", flat=True))
            rows = []
            for o in objs.iterator(chunk_size=BATCH):
                if o.pk not in cached:
                    rows += [CachedValue(object_type=object_type, object_id=o.pk, field=f.name,
                                         type=f.type, weight=f.weight, value=f.value)
                             for f in indexer.to_cache(o, custom_fields=fields)]
                if len(rows) >= BATCH:
                    n += len(bulk(CachedValue, rows))
                    rows = []
            n += len(bulk(CachedValue, rows))
        step.done(n)

    def run(self) -> dict[str, int]:
        self.check()
        self.shared()
        self.places()
        self.remove_cables()
        self.devices()
        self.cables_step()
        self.stale()
        self.paths()
        self.search_index()
        return self.counts


class Graph:
    """A site's cables, ports and port mappings in memory, to trace cable paths as NetBox's
    ``CablePath.from_origin`` does (dcim/models/cables.py, NetBox 4.5: the positionless cables
    the bundle writes, single or fanned-out panel ports with a position stack), without a query
    per hop. Nodes are NetBox's path nodes, ``"<content type id>:<object id>"``."""

    def __init__(self, cable_ct: int, front_ct: int, rear_ct: int):
        self.cable_ct, self.front_ct, self.rear_ct = cable_ct, front_ct, rear_ct
        self.link: dict[tuple, int] = {}  # a termination -> its cable
        self.ends: dict[int, dict[str, list]] = {}  # cable -> end -> terminations
        self.status: dict[int, str] = {}
        self.positions: dict[tuple, int] = {}
        self.front_maps: dict[int, list] = {}  # front port -> (front pos, rear, rear pos)
        self.rear_maps: dict[int, list] = {}

    def add_termination(self, cable: int, end: str, term: tuple) -> None:
        self.link[term] = cable
        self.ends.setdefault(cable, {"A": [], "B": []})[end].append(term)

    def add_mapping(self, front: int, front_pos: int, rear: int, rear_pos: int) -> None:
        self.front_maps.setdefault(front, []).append((front_pos, rear, rear_pos))
        self.rear_maps.setdefault(rear, []).append((rear_pos, front, front_pos))

    @staticmethod
    def node(term: tuple) -> str:
        return f"{term[0]}:{term[1]}"

    def trace(self, terms: list[tuple]):
        """(path, is_complete, is_active, is_split) from ``terms``, or None when the first has
        no cable; the steps of ``CablePath.from_origin`` for cables without a profile."""
        path, stack = [], []
        complete, active, split = False, True, False
        while terms:
            links = list(dict.fromkeys(self.link[t] for t in terms if t in self.link))
            if len(links) > 1 and stack and len(terms) != len(stack[-1]):
                split = True
                break
            path.append([self.node(t) for t in terms])
            if not links:
                if len(path) == 1:
                    return None
                break
            if any(t not in self.link for t in terms):
                complete, split = False, True
            path.append([f"{self.cable_ct}:{c}" for c in links])
            if any(self.status.get(c) != "connected" for c in links):
                active = False
            remote = []
            for c in links:
                for end in ("A", "B"):
                    if any(t in self.ends[c][end] for t in terms):
                        remote += self.ends[c]["B" if end == "A" else "A"]
            remote = list(dict.fromkeys(remote))
            path.append([self.node(t) for t in remote])
            if not remote:
                break
            kind = remote[0][0]
            if kind in (self.front_ct, self.rear_ct):
                maps, other = ((self.front_maps, self.rear_ct) if kind == self.front_ct
                               else (self.rear_maps, self.front_ct))
                if self.positions[remote[0]] > 1:
                    if not stack:
                        split = True
                        break
                    wanted = stack.pop()
                    found = [m for t in remote for m in maps.get(t[1], []) if m[0] in wanted]
                else:
                    found = [m for t in remote for m in maps.get(t[1], [])]
                if not found:
                    break
                terms = list(dict.fromkeys((other, m[1]) for m in found))
                if any(self.positions[t] > 1 for t in terms):
                    stack.append([m[2] for m in found])
            else:
                complete = all(t[0] == kind for t in remote)
                break
        return path, complete, active, split


def recount(model, queryset, *pairs) -> None:
    """NetBox's counter fields of ``queryset`` recounted (``utilities.counters.update_counts``,
    limited to these rows)."""
    from django.db.models import Count, OuterRef, Subquery
    for field, related in pairs:
        queryset.update(**{field: Subquery(model.objects.filter(pk=OuterRef("pk")).annotate(
            _n=Count(related)).values("_n"))})


def held(obj, field: str, want):
    """``obj``'s value of ``field``; a related object's id when ``want`` is an object, read
    without a query per object."""
    return getattr(obj, f"{field}_id") if hasattr(want, "pk") else getattr(obj, field)


def same(have, want) -> bool:
    if hasattr(have, "pk") or hasattr(want, "pk"):
        return getattr(have, "pk", have) == getattr(want, "pk", want)
    if isinstance(want, Decimal) or isinstance(have, Decimal):
        return (have is None) == (want is None) and (have is None or Decimal(have) == Decimal(want))
    return (have or "") == (want or "") if isinstance(want, str) or want is None else have == want


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python _netbox_bulk.py BUNDLE_DIR (run in NetBox's netbox/ folder)",
              file=sys.stderr)
        return 2
    folder = Path(argv[1])
    try:
        bundle = read_bundle(folder)
        setup_django(Path.cwd())
        load = Load(bundle)
        start = time.perf_counter()
        counts = load.run()
    except Refused as err:
        print(f"planner netbox load: {err}", file=sys.stderr)
        return EXIT_CLASH
    except KeyboardInterrupt:
        print("planner netbox load: interrupted; the steps and batches finished are in NetBox "
              "(the one under way was rolled back): run the same load again to go on",
              file=sys.stderr)
        return 130
    written = sum(v for k, v in counts.items() if k != "unchanged")
    print(f"netbox: site {bundle['sites'][0]['name']}: "
          + ", ".join(f"{k} {v:,}" for k, v in counts.items())
          + ("" if written else " (NetBox already held this plan)")
          + f" in {time.perf_counter() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
