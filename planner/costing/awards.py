"""How ``planner reprice`` awards quoted lines to suppliers, in a module of its own so that the
command line can offer the choices without loading the quote reader (pandas)."""

AWARDS = ("per-line", "per-class", "single")
"""``per-line``: the cheapest valid offer for each line; ``per-class``: one supplier per class of
the bill; ``single``: one supplier for every line (``planner.costing.quotes.award``)."""
