"""As-built verification: compare an observed neighbour list with a plan's ``cables.csv``.

After cabling, datacenter staff collect who-is-connected-to-whom from the running fabric and
check it against the plan (the same workflow as the Cisco cable-plan validation of
acitoolkit's ``applications/cableplan``, which diffs a cable-plan XML against the running
fabric, and the InfiniBand practice of comparing ``ibnetdiscover`` output with the intended
topology).

Takes: a plan folder written by ``planner plan`` (or its ``cables.csv``) and an observed file in
one of five formats: CSV ``device,port,peer_device,peer_port``, lldpd's ``lldpctl -f json``
(one file, a ``{device: output}`` object or a directory of ``DEVICE.json``), InfiniBand
``ibnetdiscover`` output, ibdiagnet's ``ibdiagnet2.net_dump``, or the report of UFM's NDT
plugin after comparing the fabric with the plan's ``ufm/*.ndt`` files. Hands on: a
``VerifyReport``, the list of physical mistakes, one finding each (swap, wrong-port,
wrong-device, missing, extra), with the cable(s), cabinets, and the expected and observed links;
``planner verify`` (``planner.commands.verify``) prints it and exits 0 when the fabric matches
the plan, 3 when it does not (2 for bad input).

Modules:

- ``values``: formats, scopes, kinds of mistake; the planned fabric (as columns), observed
  links (raw, resolved, and as a ``LinkTable`` of end keys), findings, the report;
- ``names``: observed device names and port numbers resolved to the plan's;
- ``files``: an input file as UTF-8 text within the size limit; the field limits;
- ``fields``: the checked fields of an observed link (type, length, port number), scanned
  once each, row by row (``raw_link``) or a column at a time (``checked_columns``);
- ``planned``: the planned fabric from a plan's ``cables.csv``;
- ``observed_csv``, ``lldp``, ``ibnetdiscover``, ``net_dump``, ``ufm_report``: one reader per
  observed format (the CSV, ibnetdiscover and net_dump ones also read whole columns);
- ``observed``: format detection, dispatch to a reader, resolution and deduplication of links,
  by columns (``observed_table``) and, to name a bad row, row by row (``resolve``);
- ``comparison``: the classification passes (``compare_table``, ``compare``) and ``verify``,
  the whole check;
- ``standing``: what stands for ``planner expand --as-built``: an as-built checked against a
  plan, or a system the planner did not design read from an as-built and a floor.
"""

from planner.verify.comparison import compare, verify
from planner.verify.fields import port_number
from planner.verify.ibnetdiscover import parse_ibnetdiscover
from planner.verify.lldp import parse_lldp
from planner.verify.net_dump import parse_net_dump
from planner.verify.observed import detect_format, read_observed, resolve
from planner.verify.observed_csv import parse_csv
from planner.verify.planned import load_plan
from planner.verify.ufm_report import parse_ufm_report
from planner.verify.values import FORMATS, SCOPES, ObservedLink, VerifyReport

__all__ = [  # the names planner.commands.verify and the tests use
    "FORMATS", "SCOPES", "ObservedLink", "VerifyReport", "compare", "detect_format", "load_plan",
    "parse_csv", "parse_ibnetdiscover", "parse_lldp", "parse_net_dump", "parse_ufm_report",
    "port_number", "read_observed", "resolve", "verify",
]
