"""The tuning constants of ``planner compare`` in one place, each with what chose it.

How many worker processes run and how many BLAS threads each gets are not constants: they
follow the CPU count (``planner.compare.running.run_jobs``, ``_blas_threads``).
"""

LENGTH_EDGES_M = (0, 0.5, 1, 1.5, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500,
                  700, 1000, 1500, 2000, 3000, 5000, 10000)
"""Cable-length bin edges (m): fine where copper and short optics live, coarse beyond, so a few
long hall-to-hall runs do not squeeze every other cable into one bar."""

DASK_CONNECT_TIMEOUT = "10s"
"""How long ``--dask-scheduler`` waits for the scheduler to answer before the one-line error.
No recorded measurement: set with the first ``planner compare`` (commit 7393138)."""

DASK_WORKER_TIMEOUT_S = 30.0
"""How long ``--dask-scheduler`` waits for a scheduler without workers (before the sweep, or
after every worker died or left during it) before the one-line error. A nanny restarts a
killed worker (``kill -9``) and it registers again in 1.7 s, measured on two cores at load 12;
30 s leaves room for that on a loaded machine and for workers started just after the client."""

DASK_POLL_S = 0.5
"""How often (s) ``--dask-scheduler`` checks, while no plan is ready, that the cluster still
has workers: one scheduler round trip per poll, negligible against plans of seconds."""

XLSX_CHART_CM = (16, 8)
"""Width and height (cm) of each native chart on compare.xlsx's Charts sheet (four charts in
a 2 x 2 grid). No recorded measurement: set with those charts (commit b12de56)."""

PDF_BAR_CHART_PT = 200
"""Height (pt) of a bar chart in compare.pdf, title and axis labels included, legend excluded.
No recorded measurement: set with the first ``planner compare`` (commit 7393138)."""

PDF_SCATTER_PT = 230
"""Height (pt) of compare.pdf's cost-against-θ scatter. No recorded measurement: set with
that chart (commit b12de56)."""
