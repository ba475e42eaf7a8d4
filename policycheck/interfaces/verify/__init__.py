"""Check a report against its sources (``verify``) and two reports against each other (``diff``).

``policycheck verify report.json`` is for the auditor who reads a report
months later: it re-hashes every file the report names (the policy and
every file it extends, the release manifest, every data file), re-runs the
check with the recorded seed, policy and release, and compares the
verdict, value, compared value and interval of every rule. Numbers match
when equal or within a relative tolerance of ``RELATIVE_TOLERANCE``
(1e-12: floating-point sums may associate differently across worker
processes; anything larger is a real change). Exit codes: 0 identical, 1
something differs (every difference is listed), 2 a file is missing or the
report is not a policycheck report.

``policycheck diff old.json new.json`` lists what changed from one release
(or one run) to the next: rules added or removed, verdicts and values that
changed, and which input files changed. It is a listing and exits 0;
with ``--fail-on-worse`` it exits 1 when a rule's verdict got worse
(pass < waived < warn < inconclusive < fail < error; a new rule counts as if it had passed
before), so a pipeline can stop a release that regressed.

Relative paths in a report are relative to the folder ``check`` ran in.
``verify`` resolves them against its *root*: the folder holding report.json,
or the folder ``--root`` names (the folder the check ran in, when the report
was written to a sub-folder of it). The root never comes from the report:
a report is a file anyone can write, and one saying it ran in /etc must not
make verify read /etc.

A report may come from someone else, so ``verify`` trusts nothing in it
beyond what it can re-derive or check (see :mod:`policycheck.report.integrity`):

- every field a re-run reproduces is compared with the re-run, and every
  run-context field with its digest; each difference names the JSON path;
- the report files beside report.json (HTML, Markdown, JUnit, SARIF) are
  rendered again from report.json and must be identical; report.pdf must
  have the SHA-256 report.json records for it, and every file report.json
  lists as written with it must be there;
- it never runs a command the report names: a rule whose synthesizer is the
  release's command is re-run only with ``--manifest``, a manifest the
  auditor names (its hash and each command's hash must match the report),
  and ``--run-synthesizer``, and only when the files the command names (its
  script), hashed by the check, are unchanged (:mod:`.command_files`, re-hashed
  before anything runs); otherwise verify says why that rule was not re-run,
  and does not verify;
- it reads no file outside its root (not to hash it, not to re-run with
  it), whatever the report, the manifest or the policy it names say, unless
  ``show_external`` (``--show-external``): each such file is refused with
  one line and exit 2 (:func:`policycheck.io.files.reads_confined_to`).

One module per step: :mod:`.files` reads the report and re-hashes what it names,
:mod:`.command_files` the files a synthesizer command names, :mod:`.rerun` re-runs
its check, :mod:`.differences` compares field by field, :mod:`.verification` puts
them together; :mod:`.diff` compares two reports.
"""

from policycheck.engine.commands import needs_command
from policycheck.interfaces.verify.diff import ReportDiff, diff_reports
from policycheck.interfaces.verify.differences import Difference, compare_rules, same_number
from policycheck.interfaces.verify.files import edited_after_the_run, read_report
from policycheck.interfaces.verify.rerun import rebuild_release, rerun
from policycheck.interfaces.verify.verification import Verification, verify_report

__all__ = [
    "Difference",
    "ReportDiff",
    "Verification",
    "compare_rules",
    "diff_reports",
    "edited_after_the_run",
    "needs_command",
    "read_report",
    "rebuild_release",
    "rerun",
    "same_number",
    "verify_report",
]
