"""The exports' tuning: how the writers share the machine and size what they write.

Each number says what chose it. The wiring PDF's page geometry, fonts and colours are the PDF's
own style (``planner.exports.wiring_pdf.style``); everything else that a measurement set sits
here.
"""

from __future__ import annotations

SLOWEST = ("labels", "wiring_pdf", "bom_xlsx", "netbox")
"""Writers by decreasing run time on large plans (benchmarks/bench_plan.py); the others are
several times faster. Parallel writers start with these, so they finish at about one time."""

PARALLEL_MIN_CABLES = 5_000
"""Plans with at least this many cables run their writers in parallel processes. Below it a
fork costs more than it saves (an estimate: small plans write in about a second in all; the
parallel writers are timed on large plans by benchmarks/bench_plan.py)."""

BOM_CHUNK_ROWS = 50_000
"""Rows of a bom.xlsx table written per chunk: bounds the strings held at once on the largest
plans (an estimate; the workbook's writing time at 1K-100K endpoints is in
benchmarks/WORKBOOK.md)."""

BOM_TEXT_ROWS = 5_000
"""Rows of a bom.xlsx table whose XML text is made at a time, within a ``BOM_CHUNK_ROWS``
chunk (whose shared-string codes are found at once, so the file is the same for any value):
about 5 MB of row text and field objects at once instead of ten times that. The writer's
memory at 246,272 cables with it is in benchmarks/EXPORTS.md "Labels and bom.xlsx: streamed"."""

CSV_CHUNK_ROWS = 50_000
"""Rows of a CSV file made and written at a time (``planner.exports._csv.write_rows``): a few
tens of MB of text at once instead of the whole file's (cables.csv is 54 MB at 246,272 cables,
ten times that at a million endpoints); larger chunks are no faster (the same choice as
``BOM_CHUNK_ROWS``)."""

GRAPHML_CHUNK_EDGES = 10_000
"""Router pairs whose ``<edge>`` elements topology.graphml makes (their cables' text
included) and writes at a time: at 246,272 cables (the 100K-endpoint Dragonfly of
benchmarks/EXPORTS.md) the writer adds 63 MiB of private memory with 10,000, 146 MiB with
``CSV_CHUNK_ROWS`` (50,000); the file is the same for any value."""

ANYNET_BLOCK_ROUTERS = 1_024
"""Routers whose ``node``/``router`` tokens netlist.anynet makes at a time (instead of every
endpoint's and every link's token at once: 100,000 + 2 x 146,000 strings at the
100K-endpoint Dragonfly of benchmarks/EXPORTS.md); the file is the same for any value."""

LABEL_CHUNK_PAGES = 100
"""Sheets of labels (65 labels each) made and written at a time by labels.csv and labels.pdf:
6,500 labels' text instead of every label's (about 1.4 GB more in the writer at 246,272 cables
before the writer streamed: benchmarks/EXPORTS.md "Writers that stream"). At 246,272 cables
the writer's private memory is 230 MiB with 500 sheets, 207 with 100, 204 with 20, at the same
CPU time (7.1-7.9 s over two runs of each of 500 and 100; benchmarks/EXPORTS.md "Labels,
bom.xlsx, GraphML, anynet: streamed")."""

PER_HALL_MIN_CABINETS = 5_000
"""Above this many cabinets (and with more than one hall) the cabinet and patch-rack sheets of
wiring.pdf go to one file per hall (``wiring-hall-01.pdf``...), and the label sheets too
(``labels-hall-01.pdf``..., each hall's labels in labels.csv's order, instead of labels.pdf). The 100K-endpoint Dragonfly of
benchmarks/EXPORTS.md (3,848 cabinets) gives one 14,599-page file; at 5,000 cabinets one file
would pass 20,000 pages, more than a reader opens quickly or an installer carries to one hall.
The default 10K plan and every plan of up to 5,000 cabinets keep a single wiring.pdf
and labels.pdf."""

WIRING_CHUNK_SHEETS = 500
"""Cabinets (or patch racks) whose schedule rows wiring.pdf makes at a time, as their pages are
drawn (``planner.exports.wiring_pdf.cabinets.ChunkedRows``): about 30,000 rows' text at the
100K-endpoint Dragonfly of benchmarks/EXPORTS.md (64 rows per cabinet), the size of a
``CSV_CHUNK_ROWS`` chunk, instead of the 246,000 rows of all 3,848 cabinets (an estimate;
the writer's memory with it is in benchmarks/EXPORTS.md "wiring.pdf, NetBox: streamed")."""

VIEWER_COMPRESSION_LEVEL = 6
"""zlib level of the viewer's data block. On the 100K-endpoint Dragonfly of
benchmarks/bench_viewer.py (an 18.7 MB block): level 1 gives 3.08 MB in 0.14 s, level 6
2.50 MB in 0.69 s, level 9 2.56 MB in 2.4 s. The writer runs beside wiring.pdf, which takes
about 20 s there."""

VIEWER_DICTIONARY_SHARE = 0.5
"""Text columns of the viewer's data with at most this share of distinct values are
dictionary-coded: above it a dictionary no longer pays for its own entries."""

VIEWER_MAX_RUNS = 8
"""Most runs of numbered names (r001..r384) a ``seq`` column of the viewer's data holds; a
column with more is stored as plain text (cable ids and device names take one to four)."""

VIEWER_CHUNK_ROWS = 1 << 16
"""Rows of a column of the viewer's data checked at a time (``planner.exports.viewer.
payload``): a float column's exact scale (about 25 bytes of temporaries per row) and a run of
numbered names (about 70 bytes per name made to compare), so a few MB at most for a column of
any length; the page is the same for any size."""

VIEWER_STREAM_CHUNK_BYTES = 1 << 20
"""The viewer's compressed data block goes to index.html in base64 pieces of about this many
bytes (``planner.exports.viewer.payload.pack_stream``): any size gives the same page; 1 MiB
keeps the pieces few and small beside the plan."""

VIEWER_SPOOL_CHUNK_BYTES = 1 << 20
"""The viewer's encoded columns and long text lists wait in a temporary file until the page
is written (``planner.exports.viewer.payload.Block``: about 150 bytes per cable, 370 MB at
1M endpoints, would otherwise stay in memory) and are read back this many bytes at a time."""

VIEWER_ROUTE_CHUNK_CABLES = 16_384
"""The viewer draws the cables' routes this many cables at a time
(``planner.exports.viewer.route_tables``): the route arrays of one chunk take about 0.8 KB
per cable while they are made (benchmarks/EXPORTS.md "Viewer: streamed"), so 13 MB at most
instead of 0.8 KB for every cable of the plan at once; the page is the same for any size."""

HALL_GAP_M = 6.0
"""Space drawn between halls in the viewer and the PDF floor plan (their real distance is the
hall connection's length): five 1.2 m aisles of drawing space, not a length of any cable."""


WRITER_BASE_BYTES = 32 * 2 ** 20
WRITER_BYTES_PER_CABLE = {
    "labels": 1_000, "viewer": 500, "wiring_pdf": 1_400, "bom_xlsx": 700,
    "graphml": 300, "anynet": 300, "fabric_checkers": 750, "netbox": 550, "cables_csv": 350,
    "codes": 300, "cabinets_csv": 200, "dot": 160,
}
WRITER_OTHER_BYTES_PER_CABLE = 500
"""Memory each writer adds to the process holding the plan, per cable, for choosing how many
writers to fork at once (``planner.run.memory.writers_at_once``). From benchmarks/EXPORTS.md
"Writers that stream" at 246,272 cables (``bench_exports.py --scaling``): each writer's peak
resident memory less that of the writer that adds nothing (summary_json, the plan inherited):
wiring_pdf 847 MiB (3.6 KB per cable), netbox 468 (2.0 KB), labels 292 (1.2 KB, 1,353 MiB
before it streamed), bom_xlsx 247, viewer 246, graphml 169, anynet 164, fabric_checkers 152,
cables_csv 72, codes 61, cabinets_csv 40, dot 32, the rest under 10 (40 B per cable); about
15 % margin above each, and ``WRITER_OTHER_BYTES_PER_CABLE`` for a writer not measured there.
The pages of the plan a writer copies come on top (``planner.run.memory.fork_bytes``).
``wiring_pdf`` and ``netbox`` since they stream (benchmarks/EXPORTS.md "wiring.pdf, NetBox:
streamed", the same plan): 289 MiB (1.2 KB per cable, 847 before) and 112 MiB (0.48 KB, 468
before); at 622,720 cables (250K) 491 MiB (0.83 KB) and 186 MiB (0.31 KB), and ``viewer``
753 MiB (1.27 KB, more than at 246,272 cables: raised to 1,450 B). ``viewer`` since it
streams (benchmarks/EXPORTS.md "Viewer: streamed"): 76 MiB at 246,272 cables (0.32 KB) and
249 MiB at 622,720 (0.42 KB): 500 B. ``labels``, ``bom_xlsx``, ``graphml`` and ``anynet``
since they stream (benchmarks/EXPORTS.md "Labels, bom.xlsx, GraphML, anynet: streamed", 246,272
cables): private memory (its own growth and the plan's pages it copies) 232 MiB (987 B per
cable; 370 before), 155 (661 B; 324), 62 (262 B; 209) and 67 (285 B; 183); each entry is
the private figure rounded up, above the peak resident less summary_json's (630, 379, 173,
199 B)."""


WRITER_SECONDS_PER_CABLE = {
    "wiring_pdf": 131e-6, "labels": 40e-6, "bom_xlsx": 31e-6, "netbox": 15e-6,
    "viewer": 13e-6, "fabric_checkers": 8.8e-6, "cables_csv": 4.9e-6, "graphml": 3.3e-6,
    "anynet": 2.9e-6, "cabinets_csv": 2.7e-6, "dot": 1.8e-6, "codes": 0.9e-6,
    "trunks_csv": 0.7e-6,
}
WRITER_OTHER_SECONDS_PER_CABLE = 0.1e-6
"""CPU seconds each writer takes per cable, to start the longest export tasks first
(``planner.exports.export_tasks``, ``planner.run.output.start_order``); a writer not listed
(summary_json, catalog_yaml: a small file of fixed size) takes
``WRITER_OTHER_SECONDS_PER_CABLE``. Each writer alone on the 250K plan of
benchmarks/EXPORTS.md (622,720 cables), its CPU seconds over the cables: anynet, bom_xlsx,
cabinets_csv, cables_csv, codes, dot, fabric_checkers and graphml from "Export tasks: longest
first, halls as tasks", the others from "Writers that stream" and "wiring.pdf, NetBox:
streamed" (wiring_pdf before its per-hall index, so its time is likely lower now). Only the
order depends on them, never a file."""

FORK_BYTES_PER_CABLE = {
    "wiring_pdf": 700, "viewer": 700, "bom_xlsx": 700, "netbox": 600, "labels": 600,
    "cables_csv": 600, "codes": 500, "fabric_checkers": 320, "anynet": 250, "trunks_csv": 250,
    "graphml": 180, "dot": 160, "cabinets_csv": 20,
}
FORK_OTHER_BYTES_PER_CABLE = 10
HALL_PART_FORK_BYTES_PER_CABLE = {"wiring_pdf": 110, "labels": 60}
"""Private memory of a forked export process at its peak (``Task.memory``: what it allocates
and the planner's pages it copies, reading the plan's texts), per cable of the plan, rounded up
from two measurements: the 1M row of benchmarks/RESULTS_plan.md (2,483,096 cables; every
process's ``Private_Clean`` + ``Private_Dirty`` sampled every 0.5 s, matched to the files it
had open) and each writer forked alone from the 250K plan (622,720 cables). MiB at 1M / at
250K: wiring.pdf's overview part 1,639 / (whole writer), index.html 1,634 / 379, bom.xlsx 1,394
/ 412, netbox 1,374 / 360, labels.csv 1,322, cables.csv 1,313 / 359, codes 1,038 / 282,
fabric_checkers 666 / 183, anynet 548 / 135, trunks.csv 548 / 76, dot 373 / 85, graphml 348 /
103, cabinets.csv 7 at 250K; the writers not listed (summary, catalog, work order, BookSim's
and the as-built names) under 5 MiB. ``HALL_PART_FORK_BYTES_PER_CABLE``: one hall's file of a
plan split per hall (``split.Part.per_hall``), 245 to 257 MiB (wiring) and 110 to 148 MiB
(labels) per hall at 1M; the whole-plan part (wiring.pdf, labels.csv) is the writer's. Only
which tasks run together depends on these (``planner.run.output.next_task``), never a
file."""

WIRING_OVERVIEW_SHARE = 0.1
"""Share of wiring_pdf's time that wiring.pdf takes on a plan split per hall (the rest: the
hall files, ``planner.exports.wiring_pdf.parts``). An estimate, not yet measured: wiring.pdf
then holds the summary, floor plan, group cables, BOM and trunk schedule (42 MB of the 1M
plan's 445 MB of wiring PDFs)."""

LABELS_CSV_SHARE = 0.16
"""Share of labels' time that labels.csv takes on a plan split per hall (the rest: the hall
label sheets, ``planner.exports.labels.parts``): on the 250K plan, labels.csv 4.4 CPU s, each
of the first hall files 1.2-1.3 s of 19 (benchmarks/EXPORTS.md "Export tasks: longest first,
halls as tasks")."""
