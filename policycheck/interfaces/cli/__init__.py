"""The ``policycheck`` command line: the group and ``main`` in :mod:`.main`, one module per command.

Exit codes: 0 pass, 1 a blocking rule fails, 2 invalid policy, release,
data or usage, 3 an evaluator could not run. Bad input prints one line per
problem, ``file:line:col: message``, never a traceback. A command only
parses its arguments, calls the use case (:mod:`policycheck.interfaces.check`,
:mod:`policycheck.interfaces.verify`, ...) and prints.
"""

from policycheck.interfaces.cli.main import cli, colour_choice, main

__all__ = ["cli", "colour_choice", "main"]
