"""``planner netbox load``: the bulk loader's plan-side logic without NetBox (the ports each
device gets from its type, the cables it writes and their fields), its refusals, the command's
bad arguments; then, with NETBOX_DIR (NetBox's ``netbox/`` folder), NETBOX_URL and
NETBOX_TOKEN set, a load of the two-hall structured plan into that real NetBox: NetBox's own
trace of every link ends on the far interface cables.csv names, and a second load writes
nothing."""

from __future__ import annotations

import copy
import os
import sys
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest
import yaml

from planner.cli import main
from planner.commands import _netbox_bulk as bulk
from planner.commands._netbox_load import loader_command
from planner.exports import netbox as export
from planner.run.errors import InputError

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_netbox_push import plan, plan_dir  # noqa: E402,F401  (the two-hall structured plan)


@pytest.fixture(scope="module")
def bundle(plan_dir):  # noqa: F811
    return bulk.read_bundle(plan_dir / export.FOLDER)


def test_every_device_gets_its_types_ports(bundle, plan_dir):  # noqa: F811
    """The ports the loader makes: per device, its type's interfaces, front, rear and power
    ports, counted here from the YAML files and devices.csv read with pandas."""
    folder = plan_dir / export.FOLDER
    types = {d["model"]: d for d in (yaml.safe_load(p.read_text())
                                     for p in folder.glob("device-types/*/*.yaml"))}
    devices = pd.read_csv(folder / "devices.csv", dtype=str)
    want = sum(len(types[m].get(k, [])) for m in devices["device_type"]
               for k in ("interfaces", "front-ports", "rear-ports", "power-ports"))
    ports = bulk.device_ports(bundle)
    assert len(ports) == want
    panel = devices[devices["role"] == export.PANEL_ROLE].iloc[0]
    fronts = {n for k, d, n in ports if d == panel["name"] and k == "dcim.frontport"}
    assert fronts == {t["name"] for t in types[panel["device_type"]]["front-ports"]}


def test_cables_land_on_ports_and_keep_their_printed_labels(bundle, plan_dir):  # noqa: F811
    """Every cable row becomes one cable between two ports its devices have, with the label,
    length and colour of cables.csv's bundle row (the printed label)."""
    rows = pd.read_csv(plan_dir / export.FOLDER / "cables.csv", dtype=str,
                       keep_default_na=False)
    cables = bulk.check_cables(bundle)
    assert len(cables) == len(rows)
    ports = bulk.device_ports(bundle)
    for (a, b, row), want in zip(cables, rows.itertuples(index=False)):
        assert a in ports and b in ports
        fields = bulk.cable_fields(row)
        assert fields["label"] == want.label and fields["color"] == want.color
        assert fields["length"] == Decimal(want.length)
    kinds = {tuple(sorted({a[0], b[0]})) for a, b, _ in cables}
    assert ("dcim.frontport", "dcim.interface") in kinds  # cords to panels
    assert ("dcim.rearport",) in kinds  # trunks between panels


@pytest.mark.parametrize("length, unit, metres", [
    ("2", "m", Decimal("2")), ("3.5", "ft", Decimal("1.0668")), ("150", "cm", Decimal("1.5")),
    ("", "m", None)])
def test_abs_length_is_metres(length, unit, metres):
    """NetBox's ``_abs_length`` (metres): 1 ft = 0.3048 m exactly (NIST SP 811 B.8)."""
    fields = bulk.cable_fields({"type": "", "status": "planned", "label": "", "color": "",
                                "length": length, "length_unit": unit, "description": ""})
    assert bulk.to_meters(fields["length"], fields["length_unit"]) == metres


@pytest.mark.parametrize("break_it, named", [
    ("port", "no interface 'nope'"),
    ("twice", "both land on"),
])
def test_bad_cable_rows_are_refused_naming_the_row(bundle, break_it, named):
    broken = copy.deepcopy(bundle)
    row = broken["cables"][0]
    if break_it == "port":
        row["side_a_type"], row["side_a_name"] = "dcim.interface", "nope"
    else:
        broken["cables"].append(dict(row))
    with pytest.raises(bulk.Refused, match=named) as err:
        bulk.check_cables(broken)
    assert "cables.csv row" in str(err.value)


@pytest.mark.parametrize("what, named", [
    ("no-bundle", "--plan"), ("no-netbox", "--netbox"), ("no-manage", "--netbox"),
    ("no-python", "--python")])
def test_bad_load_arguments_exit_2(plan_dir, tmp_path, capsys, what, named):  # noqa: F811
    netbox = tmp_path / "netbox"
    netbox.mkdir()
    if what != "no-manage":
        (netbox / "manage.py").write_text("")
    python = tmp_path / "python"
    if what != "no-python":
        python.write_text("")
    argv = ["netbox", "load", "--plan", str(tmp_path / "nowhere" if what == "no-bundle"
                                            else plan_dir), "--python", str(python)]
    if what != "no-netbox":
        argv += ["--netbox", str(netbox)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert named in err and len(err.splitlines()) == 1


def test_load_runs_the_loader_with_netboxs_python_in_its_folder(plan_dir, tmp_path):  # noqa: F811
    netbox = tmp_path / "opt" / "netbox"
    netbox.mkdir(parents=True)
    (netbox / "manage.py").write_text("")
    venv = tmp_path / "opt" / "venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python").write_text("")
    command, cwd = loader_command(plan_dir, str(netbox), None)
    assert command[0] == str(venv / "python") and cwd == netbox.resolve()
    assert Path(command[1]).read_text() == Path(bulk.__file__).read_text()
    assert Path(command[2]) == (plan_dir / export.FOLDER).resolve()
    with pytest.raises(InputError, match="--python"):
        loader_command(plan_dir, str(netbox), str(tmp_path / "missing"))


def test_the_loader_imports_nothing_of_the_planner():
    """It runs with NetBox's Python, where the planner is not installed."""
    source = Path(bulk.__file__).read_text()
    assert "import planner" not in source and "from planner" not in source


@pytest.mark.skipif(not (os.environ.get("NETBOX_DIR") and os.environ.get("NETBOX_URL")),
                    reason="set NETBOX_DIR, NETBOX_URL and NETBOX_TOKEN to load into a real "
                           "NetBox 4.5+")
def test_load_into_a_real_netbox(plan_dir, capsys):  # noqa: F811
    """A real NetBox: the two-hall plan loaded in bulk, NetBox's own trace of every link to
    the far interface cables.csv names, then a second load that writes nothing."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from bench_netbox import empty_site_orm, trace_all
    from planner.commands._netbox_api import Client
    netbox, python = os.environ["NETBOX_DIR"], os.environ.get("NETBOX_PYTHON")
    empty_site_orm(netbox, python, plan_dir)
    argv = ["netbox", "load", "--plan", str(plan_dir), "--netbox", netbox]
    argv += ["--python", python] if python else []
    assert main(argv) == 0
    client = Client(os.environ["NETBOX_URL"], os.environ["NETBOX_TOKEN"])
    links, through = trace_all(client, plan_dir)
    cables = pd.read_csv(plan_dir / "cables.csv")
    assert links == len(cables) and through > 0
    capsys.readouterr()
    assert main(argv) == 0
    assert "already held this plan" in capsys.readouterr().out


CABLE, IFACE, FRONT, REAR = 90, 1, 2, 3


def _panels(cord_at_far_end: bool = True) -> bulk.Graph:
    """Interface 10 - cord 100 - front 20 of panel A (rear 30 position 2 of 4) - trunk 101 -
    rear 31 of panel B, whose position 2 is front 21 (a cord 102 to interface 11) and position
    3 front 22 (a cord 103 to interface 12)."""
    g = bulk.Graph(CABLE, FRONT, REAR)
    cables = [(100, (IFACE, 10), (FRONT, 20)), (101, (REAR, 30), (REAR, 31))]
    if cord_at_far_end:
        cables.append((102, (FRONT, 21), (IFACE, 11)))
    cables.append((103, (FRONT, 22), (IFACE, 12)))
    for cable, a, b in cables:
        g.add_termination(cable, "A", a)
        g.add_termination(cable, "B", b)
        g.status[cable] = "planned"
    for port, n in (((FRONT, 20), 1), ((FRONT, 21), 1), ((FRONT, 22), 1), ((REAR, 30), 4),
                    ((REAR, 31), 4)):
        g.positions[port] = n
    g.add_mapping(20, 1, 30, 2)
    g.add_mapping(21, 1, 31, 2)
    g.add_mapping(22, 1, 31, 3)
    return g


def test_trace_through_panels_follows_the_rear_port_position():
    """NetBox's CablePath.from_origin by hand: interface, cord, front port, rear port (its
    position 2 pushed), trunk, rear port (position 2 popped: front 21, not 22), cord,
    interface; complete, not active (the cables are planned, not connected), not split."""
    path, complete, active, split = _panels().trace([(IFACE, 10)])
    assert path == [["1:10"], ["90:100"], ["2:20"], ["3:30"], ["90:101"], ["3:31"], ["2:21"],
                    ["90:102"], ["1:11"]]
    assert (complete, active, split) == (True, False, False)
    back, complete, _, _ = _panels().trace([(IFACE, 11)])
    assert [hop[0] for hop in back] == [hop[0] for hop in reversed(path)] and complete


def test_trace_stops_at_a_panel_port_without_a_cord():
    """A path whose far cord is not in yet ends on the far panel's front port, incomplete:
    the loader traces it again once the cord is in."""
    path, complete, _, split = _panels(cord_at_far_end=False).trace([(IFACE, 10)])
    assert path[-1] == ["2:21"] and not complete and not split


def test_trace_of_a_direct_connected_cable_is_active_and_an_uncabled_port_has_none():
    g = bulk.Graph(CABLE, FRONT, REAR)
    g.add_termination(7, "A", (IFACE, 1))
    g.add_termination(7, "B", (IFACE, 2))
    g.status[7] = "connected"
    assert g.trace([(IFACE, 2)]) == ([["1:2"], ["90:7"], ["1:1"]], True, True, False)
    assert g.trace([(IFACE, 3)]) is None


def test_push_without_url_or_token_file_exits_2(plan_dir, capsys):  # noqa: F811
    """--url and --token-file are the push's (the load needs neither)."""
    assert main(["netbox", "push", "--plan", str(plan_dir)]) == 2
    err = capsys.readouterr().err.strip()
    assert "--url" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("have, want, equal", [
    (Decimal("2.00"), Decimal("2"), True),      # NetBox's decimal(8,2) against the CSV's "2"
    (Decimal("2.50"), Decimal("2"), False),
    (None, None, True), (None, Decimal("1"), False),
    ("", None, True),                            # a blank choice against no value
    ("planned", "planned", True), ("planned", "active", False),
    (7, type("Obj", (), {"pk": 7})(), True),     # a related object's id against the object
    (8, type("Obj", (), {"pk": 7})(), False),
])
def test_fields_compare_as_netbox_stores_them(have, want, equal):
    """A second load rewrites nothing: a field equals the bundle's when NetBox stores the same
    value in its own type."""
    assert bulk.same(have, want) is equal
