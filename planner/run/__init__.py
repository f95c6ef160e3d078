"""The run machinery every stage may use: the one error type for bad input (``errors``), stop
signals (``interrupts``), progress on a terminal or in a log (``progress``), what reaches the
terminal (``terminal``: input text escaped, a stdout that never decides a run), resource guards
on sizes and input files (``guards``) and the atomically written output folder (``output``).

Takes nothing from the stages and hands them these helpers; it imports no other part of the
planner, so every stage can import it.
"""
