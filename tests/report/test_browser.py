"""The HTML report in a real headless Chromium (Debian's ``chromium``).

Each report is rendered twice: as written, for a screenshot and the
browser's console log; and as a test copy with a probe script injected at
the top of <head> (the report itself holds no script), which records
errors and failed loads, lists every resource the page fetched, measures
the page's width against the window's, and finds SVG labels cut off by
their chart, then writes its findings into the DOM for ``--dump-dom``.

Skipped when chromium is missing, except under CI (environment variable
CI set), where it fails. Set POLICYCHECK_SCREENSHOTS to a folder to keep
the screenshots for a person to look at.
"""

import html
import json
import os
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pandas as pd
import pytest

from policycheck.interfaces.check import CheckOptions, check_release
from policycheck.interfaces.demo import find_policy, write_release
from policycheck.release.load import load_manifest
from policycheck.report.render import render_html

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    # Any attempt to reach the network fails, so the probe sees it.
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--enable-logging=stderr",
    "--v=0",
]
#: Widths checked for overflow: a desktop window, and about an A4 page's printable width.
WIDTHS = (1200, 700)

PROBE = """<script>
window.__errors = [];
window.addEventListener('error', function (e) {
  var t = e.target;
  window.__errors.push(
    t && t !== window && (t.src || t.href) ? 'failed to load ' + (t.src || t.href) : 'error: ' + e.message
  );
}, true);
window.addEventListener('unhandledrejection', function (e) { window.__errors.push('rejection: ' + e.reason); });
window.addEventListener('load', function () {
  var de = document.documentElement, width = de.clientWidth, wide = [], clipped = [];
  document.querySelectorAll('body *').forEach(function (el) {
    var r = el.getBoundingClientRect();
    if (r.width > 0 && (r.right > width + 0.5 || r.left < -0.5)) {
      wide.push(el.tagName + ' ' + (el.textContent || '').slice(0, 40));
    }
  });
  document.querySelectorAll('svg text').forEach(function (t) {
    var box = t.ownerSVGElement.getBoundingClientRect(), r = t.getBoundingClientRect();
    if (r.width > 0
        && (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)) {
      clipped.push((t.textContent || '').slice(0, 40));
    }
  });
  // SVG labels that overlap another label of the same drawing (by the browser's own text geometry)
  var overlaps = [];
  document.querySelectorAll('svg').forEach(function (svg) {
    var boxes = Array.prototype.map.call(svg.querySelectorAll('text'), function (t) {
      return [t, t.getBoundingClientRect()];
    })
      // turned labels (a heat map's columns) are left out: their axis-aligned boxes overlap where their glyphs do not
      .filter(function (b) {
        return b[1].width > 0 && (b[0].textContent || '').trim() && !b[0].hasAttribute('transform');
      });
    for (var i = 0; i < boxes.length; i++) {
      for (var j = i + 1; j < boxes.length; j++) {
        var a = boxes[i][1], b = boxes[j][1];
        if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) {
          overlaps.push(boxes[i][0].textContent.slice(0, 30) + ' / ' + boxes[j][0].textContent.slice(0, 30));
        }
      }
    }
  });
  window.__probe = {
    overlaps: overlaps.slice(0, 10),
    scrollWidth: de.scrollWidth, clientWidth: width, errors: window.__errors, wide: wide.slice(0, 10),
    clipped: clipped.slice(0, 10),
    resources: performance.getEntriesByType('resource').map(function (e) { return e.name; }),
    scripts: document.scripts.length, title: document.title
  };
});
</script>"""
#: The page that holds one probed copy per width, each in an iframe of that
#: width (srcdoc frames share the page's origin, so it can read their probes).
FRAMES = """<!DOCTYPE html><html><head><script>
window.addEventListener('load', function () {
  var out = document.createElement('pre');
  out.id = '__probe';
  out.textContent = JSON.stringify(Array.prototype.map.call(document.querySelectorAll('iframe'), function (f) {
    return f.contentWindow.__probe || {errors: ['the probe did not run']};
  }));
  document.body.appendChild(out);
});
</script></head><body style="margin:0">{frames}</body></html>"""


def _command(args: list[str], profile: Path) -> list[str]:
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: CI must install Debian's chromium (see .ci/run)")
        pytest.skip("chromium is not installed")
    return [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args]


def chromium_all(commands: list[list[str]]) -> list[tuple[int, str, str]]:
    """Run several chromium commands at once (each mostly waits on start-up); (exit, stdout, stderr) each."""
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for c in commands]
    out = []
    for proc in procs:
        try:
            stdout, stderr = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = proc.communicate()
        out.append((proc.returncode, stdout, stderr))
    return out


def console_messages(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def probe_command(page: Path, tmp_path: Path, widths: tuple[int, ...]) -> list[str]:
    """Command loading a probed copy of ``page`` at every width (the findings go into the dumped DOM)."""
    text = page.read_text(encoding="utf-8")
    assert text.count("<head>") == 1
    probed = html.escape(text.replace("<head>", "<head>" + PROBE, 1), quote=True)
    frames = "".join(
        f'<iframe width="{w}" height="900" style="border:0;display:block" srcdoc="{probed}"></iframe>' for w in widths
    )
    copy = tmp_path / "probed.html"
    copy.write_text(FRAMES.replace("{frames}", frames), encoding="utf-8")
    return _command(
        [
            f"--window-size={max(widths) + 20},{900 * len(widths) + 20}",
            "--virtual-time-budget=5000",
            "--dump-dom",
            copy.as_uri(),
        ],
        tmp_path / "profile-probe",
    )


def probe_results(run: tuple[int, str, str]) -> list[dict]:
    code, stdout, stderr = run
    found = re.search(r'<pre id="__probe">(.*?)</pre>', stdout, re.S)
    assert found, f"the probe did not report (chromium exit {code}): {stderr[-2000:]}"
    return json.loads(html.unescape(found.group(1)))


def probe(page: Path, tmp_path: Path, width: int) -> dict:
    """Load a probed copy of ``page`` at ``width`` and return what the probe measured."""
    return probe_results(chromium_all([probe_command(page, tmp_path, (width,))])[0])[0]


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def png_is_not_blank(path: Path) -> bool:
    """Whether the image holds more than one colour (decoding the first IDAT rows)."""
    data = path.read_bytes()
    idat = b"".join(
        data[i + 8 : i + 8 + struct.unpack(">I", data[i : i + 4])[0]]
        for i in [m.start() - 4 for m in re.finditer(b"IDAT", data)]
    )
    raw = zlib.decompressobj().decompress(idat, 4_000_000)
    return len(set(raw[1:])) > 8


def check_in_browser(page: Path, tmp_path: Path, name: str, widths: tuple[int, ...] = WIDTHS) -> Path:
    """Screenshot, console check and probe at every width; returns the screenshot."""
    shot = tmp_path / f"{name}.png"
    commands = [
        _command([f"--window-size={WIDTHS[0]},2400", f"--screenshot={shot}", page.as_uri()], tmp_path / "profile-shot")
    ]
    commands.append(probe_command(page, tmp_path, widths))
    (_, _, shot_log), probe_run = chromium_all(commands)
    assert shot.is_file(), shot_log[-2000:]
    assert console_messages(shot_log) == []
    assert png_size(shot) == (WIDTHS[0], 2400) and png_is_not_blank(shot)
    if os.environ.get("POLICYCHECK_SCREENSHOTS"):
        folder = Path(os.environ["POLICYCHECK_SCREENSHOTS"])
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, folder / shot.name)
    assert console_messages(probe_run[2]) == []
    for width, found in zip(widths, probe_results(probe_run), strict=True):
        assert found["clientWidth"] == width
        assert found["errors"] == [], found["errors"]
        assert found["resources"] == [], "the report must not fetch anything"
        assert found["scripts"] == 1, "only the probe's script may be on the page"
        assert found["scrollWidth"] <= found["clientWidth"], f"content overflows {width} px: {found['wide']}"
        assert found["wide"] == []
        assert found["clipped"] == [], f"chart labels cut off at {width} px"
        assert found["overlaps"] == [], f"chart labels overlap at {width} px"
    return shot


HOSTILE = "<script>window.__errors.push('escaped? no: ran')</script>"
HOSTILE_VALUE = "<img src=x onerror=\"window.__errors.push('escaped? no: img ran')\">"

POLICY = """\
metadata: {id: toy, title: "Toy policy <b>not bold</b>", version: "1", owner: tests}
attacker: {model: no-box, quasi_identifiers: [sex], secrets: ["COLUMN"]}
rules:
  - id: hostile-share
    metric: toy_share
    params: {column: "COLUMN", value: "VALUE"}
    threshold: {fail_above: 0.5, compare: estimate}
  - id: warns
    metric: toy_share
    params: {column: sex, value: Male}
    threshold: {fail_above: 0.9, warn_above: 0.3, compare: estimate}
  - id: waived
    metric: toy_share
    params: {column: sex, value: Male}
    threshold: {fail_above: 0.2, compare: upper}
    severity: advisory
  - id: errors
    metric: toy_share
    params: {column: sex, value: Male, explode: true}
    threshold: {fail_above: 0.5, compare: estimate}
waivers:
  - {rule: waived, reason: "Accepted for the pilot; <i>see</i> the ticket", approved_by: Jane Roe, expires: 2099-12-31,
     ticket: PRIV-1}
"""


def every_chart_kind(labels: list[str]) -> list[dict]:
    """One chart of each kind the metric families draw, with data-like labels."""
    many = [f"({a}, {b}, {6 - a - b}) vs ({a}, {b + 1}, {5 - a - b})" for a in range(4) for b in range(4)]
    return [
        {
            "kind": "histogram",
            "title": "Distance to closest record: training against holdout",
            "x_label": "Gower distance",
            "series": [
                {"name": "to training", "edges": [i / 20 for i in range(21)], "counts": [30 - i for i in range(20)]},
                {"name": "to holdout", "edges": [i / 20 for i in range(21)], "counts": [5 + i for i in range(20)]},
            ],
            "reference_lines": [{"axis": "x", "value": 0.1, "label": "narrow (policy fraction)"}],
        },
        {
            "kind": "line",
            "title": "Range narrowing of hours_per_week against the number of sets",
            "x_label": "number of released synthetic sets used by the attacker (first m)",
            "y_label": "share of original records whose secret is narrowed to a correct, narrow range",
            "series": [{"name": "linkage attack", "x": [1, 2, 3, 4, 5], "y": [0.1, 0.18, 0.24, 0.27, 0.3]}],
        },
        {
            "kind": "bar",
            "title": "Attack accuracy per attack against the baseline",
            "x_label": "attack",
            "y_label": "accuracy",
            "series": [
                {
                    "name": f"{labels[0]}: original records",
                    "x": ["lp", "dcr", "ml", labels[1]],
                    "y": [0.81, 0.88, 0.86, 0.79],
                },
                {
                    "name": "holdout records (control)",
                    "x": ["lp", "dcr", "ml", labels[1]],
                    "y": [0.77, 0.78, 0.79, 0.76],
                },
            ],
            "reference_lines": [{"axis": "y", "value": 0.765, "label": "guess the most common secret"}],
        },
        {
            "kind": "scatter",
            "title": "ROC of the attack",
            "x_label": "false positive rate",
            "y_label": "true positive rate",
            "series": [
                {"name": "attack", "x": [0, 0.1, 0.3, 1], "y": [0, 0.5, 0.8, 1]},
                {"name": "chance", "x": [0, 1], "y": [0, 1]},
            ],
        },
        {
            "kind": "heatmap",
            "title": "|log ratio| of neighbouring tables per output; marked: above epsilon = 2",
            "row_labels": many,
            "col_labels": [f"({i}, {6 - i}, 0)" for i in range(30)],
            "values": [
                [((i * 7 + j * 3) % 11) / 2 if (i + j) % 9 else None for j in range(30)] for i in range(len(many))
            ],
            "marked": [[i, j] for i in range(len(many)) for j in range(30) if ((i * 7 + j * 3) % 11) / 2 > 4],
        },
        {
            "kind": "heatmap",
            "title": "Small matrix",
            "row_labels": labels,
            "col_labels": ["a", "b", "c"],
            "values": [[0.1, 0.5, 2.0], [1.0, None, 0.3]],
            "marked": [[0, 2]],
        },
    ]


@pytest.fixture
def toy_report_page(toy_metric, write, tmp_path):
    """A toy report with every verdict, hostile data labels and every kind of chart."""
    frame = pd.DataFrame(
        {
            "age": [30, 41, 52, 23, 35, 60],
            "sex": ["Male", "Female", "Male", "Female", "Male", "Male"],
            HOSTILE: [HOSTILE_VALUE, "b", HOSTILE_VALUE, "b", "b", "b"],
        }
    )
    for name in ("original", "synthetic"):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    frame.assign(age=frame["age"] + 1).to_csv(tmp_path / "holdout.csv", index=False)  # a holdout of its own
    write(
        "release.yaml",
        "release: {id: toy-release}\noriginal: original.csv\nholdout: holdout.csv\n"
        "synthetic:\n  - path: synthetic.csv\n",
    )
    policy = POLICY.replace("COLUMN", HOSTILE.replace('"', '\\"')).replace("VALUE", HOSTILE_VALUE.replace('"', '\\"'))
    report = check_release(
        write("p.yaml", policy),
        load_manifest(tmp_path / "release.yaml"),
        tmp_path / "out",
        CheckOptions(executor="serial", seed=1),
        formats=("json",),
    )
    assert [r["verdict"] for r in report["rules"]] == ["pass", "warn", "waived", "error"]
    report["rules"][0]["charts"] = every_chart_kind([HOSTILE, HOSTILE_VALUE])
    report["rules"][1]["charts"] = every_chart_kind(["synthetic[0]", "a category label longer than any cell"])[:3]
    page = tmp_path / "out" / "report.html"
    page.write_text(render_html(report), encoding="utf-8")
    return page


def test_toy_report_with_every_chart_kind_renders_cleanly(toy_report_page, tmp_path):
    text = toy_report_page.read_text()
    assert "<script" not in text and "<img" not in text and "<b>not bold" not in text
    check_in_browser(toy_report_page, tmp_path, "toy-report")


def test_the_probe_catches_what_it_must(tmp_path):
    # A page that overflows, loads a remote image and logs an error must fail each check.
    page = tmp_path / "bad.html"
    page.write_text(
        '<!DOCTYPE html><html><head><title>bad</title></head><body><div style="width:3000px">wide</div>'
        '<img src="https://example.org/x.png"><svg viewBox="0 0 100 20" width="100"><text x="90" y="15">'
        'far too long a label</text></svg><svg viewBox="0 0 200 20" width="200"><text x="10" y="15">fail 0.01'
        '</text><text x="20" y="15">warn 0.001</text></svg></body></html>'
    )
    found = probe(page, tmp_path, 1200)
    assert found["overlaps"] == ["fail 0.01 / warn 0.001"]
    assert found["scrollWidth"] > found["clientWidth"]
    assert any("failed to load https://example.org/x.png" in e for e in found["errors"])
    assert found["clipped"] == ["far too long a label"]


def test_demo_report_renders_cleanly(tmp_path, monkeypatch):
    # The demo's own pipeline on its failing release (the one with the most to show).
    policy = find_policy()
    release = load_manifest(write_release("nonprivate", tmp_path / "demo", seed=20261121))
    monkeypatch.chdir(tmp_path)
    check_release(
        policy,
        release,
        tmp_path / "demo" / "nonprivate",
        CheckOptions(seed=20261121, executor="serial"),
        formats=("json", "html"),
    )
    check_in_browser(tmp_path / "demo" / "nonprivate" / "report.html", tmp_path, "demo-nonprivate")


CHART_KINDS = {
    "bar": {
        "kind": "bar",
        "title": "Attack accuracy per attack",
        "x_label": "attack",
        "y_label": "accuracy",
        "series": [
            {"name": "original records", "x": ["lp", "exact", "rf"], "y": [0.807, 0.883, 0.887]},
            {"name": "holdout records (control)", "x": ["lp", "exact", "rf"], "y": [0.771, 0.782, 0.806]},
        ],
        "reference_lines": [{"axis": "y", "value": 0.765, "label": "guess the most common secret"}],
    },
    "bar-long-ids": {
        "kind": "bar",
        "title": "Value per rule",
        "x_label": "rule",
        "y_label": "value",
        "series": [
            {
                "name": "value",
                "x": [f"release-2026-q4-membership-rule-{i}-long" for i in range(8)],
                "y": [0.12, 0.5, 0.25, 0.75, 0.33, 0.1, 0.9, 0.05],
            }
        ],
    },
    "line-one-set": {
        "kind": "line",
        "title": "Range narrowing against the number of sets (M = 1)",
        "x_label": "m",
        "y_label": "share of records narrowed",
        "series": [{"name": "linkage attack", "x": [1], "y": [0.103]}],
        "reference_lines": [{"axis": "y", "value": 0.0097, "label": "baseline (holdout)"}],
    },
    "line": {
        "kind": "line",
        "title": "Membership attack (ROC)",
        "x_label": "false-positive rate",
        "y_label": "true-positive rate",
        "series": [
            {"name": "attack", "x": [0, 0.1, 0.4, 1], "y": [0, 0.5, 0.8, 1]},
            {"name": "blind guess", "x": [0, 1], "y": [0, 1]},
        ],
    },
    "line-log": {
        "kind": "line",
        "title": "Membership game: ROC of the most exposed targets (log-log)",
        "x_label": "false positive rate",
        "y_label": "true positive rate",
        "x_scale": "log",
        "y_scale": "log",
        "x_domain": [0.01, 1.0],
        "y_domain": [0.01, 1.0],
        "series": [
            {"name": "record 17 (AUC 0.82)", "x": [0.01, 0.01, 0.04, 0.2, 1], "y": [0.01, 0.6, 0.7, 0.8, 1]},
            {"name": "chance", "x": [0.01, 1], "y": [0.01, 1]},
        ],
    },
    "scatter": {
        "kind": "scatter",
        "title": "Scatter",
        "x_label": "x",
        "y_label": "share of records",
        "series": [{"name": "s", "x": [0.1, 0.5, 0.9], "y": [-0.05, 0.4, 1.02]}],
    },
    "histogram": {
        "kind": "histogram",
        "title": "Distance to closest record",
        "x_label": "Gower distance",
        "series": [
            {"name": "to training", "edges": [0, 0.1, 0.2, 0.3], "counts": [50, 30, 20]},
            {"name": "to holdout", "edges": [0, 0.1, 0.2, 0.3], "counts": [30, 40, 30]},
        ],
    },
    "heatmap": {
        "kind": "heatmap",
        "title": "Transition matrix",
        "row_labels": ["a", "b"],
        "col_labels": ["x", "y"],
        "values": [[0.1, 0.9], [0.6, 0.4]],
        "marked": [[0, 1]],
    },
}


@pytest.mark.parametrize("kind", sorted(CHART_KINDS))
def test_each_chart_kind_renders_without_overlapping_or_cut_labels(kind, tmp_path):
    """One screenshot per chart kind (kept in POLICYCHECK_SCREENSHOTS when set), beside the probe's checks."""
    from policycheck.report.charts import render_chart, render_gauge

    gauge = render_gauge(
        {
            "value": 1.0,
            "interval": [0.9975, 1.0],
            "value_range": [0.0, 1.0],
            "compared_value": 1.0,
            "threshold": {"fail_above": 0.01, "warn_above": 0.001, "compare": "estimate"},
        }
    )
    css = render_html_css()
    page = tmp_path / f"chart-{kind}.html"
    page.write_text(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{kind}</title><style>{css}</style></head>"
        f"<body><main>{gauge}<div class='charts'>{render_chart(CHART_KINDS[kind])}</div></main></body></html>",
        encoding="utf-8",
    )
    check_in_browser(page, tmp_path, f"chart-{kind}")


def render_html_css() -> str:
    """The report's own stylesheet, so a chart is measured as the report shows it."""
    sample = json.loads((Path(__file__).resolve().parents[2] / "reports/demo/indhist_dp/report.json").read_text())
    return render_html(sample).split("<style>", 1)[1].split("</style>", 1)[0]
