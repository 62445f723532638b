#!/usr/bin/env python3
"""Merges ctile's and the peers' bandwidth results into a table, a plot and one JSON document.

Usage:
  python3 bench/report.py CTILE_JSON [PEERS_JSON] [--commit SHA]
                          [--md OUT.md] [--svg OUT.svg] [--json OUT.json]

CTILE_JSON is what bench_bandwidth writes, PEERS_JSON what bench/peers.py writes (scripts/bench
runs all three). Without PEERS_JSON, or when that file does not exist (a warning on stderr), the
report is ctile's alone and says that the peers were not run. Without --md the markdown goes to
stdout; --svg and --json are written only when asked for.

Outputs:
  --md    header (date, commit, GPU, copy ceiling, method), one table row per (kernel, dtype,
          shape) of CTILE_JSON in its order, and how many judged rows meet issue 5's bar;
  --svg   throughput against bytes moved (log scale) for the bf16 2-D rows, a panel per kernel;
  --json  {"date", "commit", "gpu", "copy_ceiling_gbps", "ctile", "peers", "rows", ...}.

The bar (issue 5), judged only at the issue's shapes (32768x8192 and 32767x8191 in bf16, f16 and
f32, softmax 1024x262144, rope 4x8192x64x128 and 3x4095x33x128): ctile reaches 0.90x the copy
ceiling (0.80x for softmax at 262144 columns) and takes no longer than torch.compile. The copy
ceiling is the best device-to-device copy of either run. Method: bench/README.md.

Exit status: 0 when the report was written, whatever the bar says; 2 for input that cannot be
used (a missing ctile file, invalid JSON, a wrong "tool", missing keys) or output that cannot be
written, with a message naming the file. Python 3 standard library only.
"""
import argparse
import json
import math
import os
import sys
from xml.sax.saxutils import escape, quoteattr

PEER_IMPLS = ("torch", "torch.compile", "triton")  # the impl strings bench/peers.py writes
PEER_TITLES = {"torch": "torch eager", "torch.compile": "torch.compile", "triton": "triton"}
DTYPES = ("bf16", "f16", "f32")
JUDGED_2D = ((32768, 8192), (32767, 8191))
JUDGED_ROPE = ((4, 8192, 64, 128), (3, 4095, 33, 128))
SOFTMAX_WIDE = (1024, 262144)
BAR = 0.90
BAR_SOFTMAX_WIDE = 0.80  # issue 5's one exception: softmax at 262144 columns
DASH = "—"
BYTES_SLACK = 1e-3  # ctile and a peer counting bytes further apart than this: GB/s do not compare


class ReportError(Exception):
    """Input or output that cannot be used: main() prints it and exits 2, without a traceback."""


# --- reading and checking the two documents -----------------------------------------------------

def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)  # JSON true is not a number


def positive(v):
    return is_number(v) and math.isfinite(v) and v > 0


def _shape_ok(v):
    return isinstance(v, list) and bool(v) and all(isinstance(d, int) and not isinstance(d, bool)
                                                  and d > 0 for d in v)


# key -> (check, what the check wants, for the message)
TOP_SPEC = {
    "tool": (lambda v: isinstance(v, str), "a string"),
    "gpu": (lambda v: isinstance(v, str), "a string"),
    "date": (lambda v: isinstance(v, str), "a string"),
    "copy_ceiling": (lambda v: isinstance(v, list), "a list"),
    "results": (lambda v: isinstance(v, list), "a list"),
}
CEILING_SPEC = {
    "bytes": (is_number, "a number"),
    "ms": (lambda v: v is None or is_number(v), "a number or null"),
    "gbps": (lambda v: v is None or is_number(v), "a number or null"),
}
ROW_SPEC = {
    "kernel": (lambda v: isinstance(v, str), "a string"),
    "impl": (lambda v: isinstance(v, str), "a string"),
    "dtype": (lambda v: isinstance(v, str), "a string"),
    "shape": (_shape_ok, "a non-empty list of positive integers"),
    "bytes": (is_number, "a number"),
    "ms": (lambda v: v is None or is_number(v), "a number or null"),
    "gbps": (lambda v: v is None or is_number(v), "a number or null"),
    "ok": (lambda v: isinstance(v, bool), "true or false"),
    "error": (lambda v: v is None or isinstance(v, str), "a string or null"),
}


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise ReportError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ReportError(f"{path}: cannot read: {e}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ReportError(f"{path}: not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None


def check_object(obj, spec, where):
    """Raises ReportError unless obj is a JSON object with every key of spec, each as it wants."""
    if not isinstance(obj, dict):
        raise ReportError(f"{where}: expected a JSON object, found {type(obj).__name__}")
    for key, (ok, wanted) in spec.items():
        if key not in obj:
            raise ReportError(f'{where}: missing key "{key}"')
        if not ok(obj[key]):
            raise ReportError(f'{where}: "{key}" should be {wanted}, found {json.dumps(obj[key])}')


def load_doc(path, tool):
    """The checked document of one side; tool is the "tool" it must name ("ctile" or "peers")."""
    doc = read_json(path)
    check_object(doc, TOP_SPEC, path)
    if doc["tool"] != tool:
        raise ReportError(f'{path}: "tool" is "{doc["tool"]}", expected "{tool}"'
                          " (are the ctile and peers files swapped?)")
    for i, entry in enumerate(doc["copy_ceiling"]):
        check_object(entry, CEILING_SPEC, f"{path}: copy_ceiling[{i}]")
    for i, row in enumerate(doc["results"]):
        check_object(row, ROW_SPEC, f"{path}: results[{i}]")
        if tool == "ctile" and row["impl"] != "ctile":
            raise ReportError(f'{path}: results[{i}]: impl is "{row["impl"]}", expected "ctile"')
    return doc


def load_peers(path, warnings):
    """(peers document or None, why it is None). An absent file is a warning, not an error:
    a run whose peers never started still deserves its ctile report. A file that is there
    but unusable is an error, like the ctile file."""
    if path is None:
        return None, "no peers file was given"
    if not os.path.exists(path):
        warnings.append(f"{path} does not exist: the report is ctile's alone")
        return None, f"{path} does not exist"
    return load_doc(path, "peers"), None


# --- rows, ceiling and the bar ------------------------------------------------------------------

def key_of(row):
    return row["kernel"], row["dtype"], tuple(row["shape"])


def shape_text(shape):
    return "x".join(str(d) for d in shape)


def describe(key):
    kernel, dtype, shape = key
    return f"{kernel} {dtype} {shape_text(shape)}"


def status(row):
    """"ok" when the row has a speed to use; otherwise what the table shows instead of one.
    The error comes first: peers.py can check a result (ok true) and then fail timing it."""
    if row["error"] is not None:
        return "error"
    if not row["ok"]:
        return "wrong"
    if not (positive(row["ms"]) and positive(row["gbps"])):
        return "error"
    return "ok"


def valid(row):
    return row is not None and status(row) == "ok"


def unique_rows(doc, path, warnings):
    """The rows of doc by (key, impl), first occurrence kept, in file order."""
    rows = {}
    for row in doc["results"]:
        k = (key_of(row), row["impl"])
        if k in rows:
            warnings.append(f"{path}: a second {row['impl']} row for {describe(k[0])}; the first is used")
        else:
            rows[k] = row
    return rows


def peer_index(peers, path, warnings):
    if peers is None:
        return {}
    rows = unique_rows(peers, path, warnings)
    unknown = sorted({impl for _, impl in rows if impl not in PEER_IMPLS})
    if unknown:
        warnings.append(f"{path}: rows of unknown impl {', '.join(unknown)} are left out")
    return {k: r for k, r in rows.items() if k[1] in PEER_IMPLS}


def best_ceiling(doc):
    """The fastest copy of one run, or None; each run's best copy is its own estimate of the
    ceiling, and the report uses the higher of the two (the stricter bar)."""
    if doc is None:
        return None
    speeds = [c["gbps"] for c in doc["copy_ceiling"] if positive(c["gbps"])]
    return max(speeds) if speeds else None


def judged(kernel, dtype, shape):
    """Whether issue 5's bar applies at this row; the size sweep is there for the plot only."""
    if dtype not in DTYPES:
        return False
    if kernel == "rope":
        return shape in JUDGED_ROPE
    return shape in JUDGED_2D or (kernel == "softmax" and shape == SOFTMAX_WIDE)


def bar_factor(kernel, shape):
    return BAR_SOFTMAX_WIDE if kernel == "softmax" and shape[-1] == SOFTMAX_WIDE[1] else BAR


def judge(ctile, compiled, ceiling, factor):
    """(meets, text) for a judged row: the text is what the "meets bar" column shows."""
    if not valid(ctile):
        return False, f"no (ctile {status(ctile)})"
    if not valid(compiled):
        return False, "n/a (no torch.compile)"
    reasons = []
    if ceiling is None:
        reasons.append("no copy ceiling")
    elif ctile["gbps"] < factor * ceiling:
        # Three digits, so that a near miss does not read "0.90x < 0.90x".
        reasons.append(f"{ctile['gbps'] / ceiling:.3f}x < {factor:.2f}x ceiling")
    if compiled["ms"] < ctile["ms"]:
        reasons.append(f"slower than torch.compile ({compiled['ms'] / ctile['ms']:.3f}x)")
    return not reasons, "yes" if not reasons else "no: " + "; ".join(reasons)


def check_bytes(key, ctile, peers, warnings):
    """GB/s compare only when both sides count the same bytes; the bar itself uses times."""
    for impl, row in peers.items():
        if row is not None and abs(row["bytes"] - ctile["bytes"]) > BYTES_SLACK * ctile["bytes"]:
            warnings.append(f"{describe(key)}: ctile counts {ctile['bytes']:.0f} bytes, {impl} "
                            f"{row['bytes']:.0f}: their GB/s do not compare")


def build_line(ctile, peers_by_key, ceiling, warnings):
    """One table row: ctile's row, its peers' rows and the verdict."""
    key = key_of(ctile)
    kernel, dtype, shape = key
    peers = {impl: peers_by_key.get((key, impl)) for impl in PEER_IMPLS}
    check_bytes(key, ctile, peers, warnings)
    line = {"key": key, "ctile": ctile, "peers": peers, "judged": judged(kernel, dtype, shape),
            "ratio_ceiling": None, "ratio_compile": None, "meets": None, "bar": DASH, "factor": None}
    if valid(ctile) and ceiling is not None:
        line["ratio_ceiling"] = ctile["gbps"] / ceiling
    if valid(ctile) and valid(peers["torch.compile"]):
        line["ratio_compile"] = peers["torch.compile"]["ms"] / ctile["ms"]  # above 1: ctile faster
    if line["judged"]:
        line["factor"] = bar_factor(kernel, shape)
        line["meets"], line["bar"] = judge(ctile, peers["torch.compile"], ceiling, line["factor"])
    return line


def build_report(args):
    """Everything the three outputs are made of, checked; raises ReportError on bad input."""
    warnings = []
    ctile = load_doc(args.ctile, "ctile")
    peers, peers_missing = load_peers(args.peers, warnings)
    if peers is not None and peers["gpu"] != ctile["gpu"]:
        warnings.append(f'ctile ran on "{ctile["gpu"]}" but the peers on "{peers["gpu"]}": '
                        "the comparison with the peers and the bar are not valid")
    peers_by_key = peer_index(peers, args.peers, warnings)
    ceilings = {"ctile": best_ceiling(ctile), "peers": best_ceiling(peers)}
    known = [c for c in ceilings.values() if c is not None]
    ceiling = max(known) if known else None
    if ceiling is None:
        warnings.append("neither file has a copy ceiling: no ratio to it, and no row meets the bar")
    lines = [build_line(row, peers_by_key, ceiling, warnings)
             for row in unique_rows(ctile, args.ctile, warnings).values()]
    in_table = {line["key"] for line in lines}
    orphans = sorted({describe(k) for k, _ in peers_by_key if k not in in_table})
    return {"args": args, "ctile": ctile, "peers": peers, "peers_missing": peers_missing,
            "ceilings": ceilings, "ceiling": ceiling, "lines": lines, "orphans": orphans,
            "warnings": warnings}


def summary(report):
    judged_lines = [line for line in report["lines"] if line["judged"]]
    failing = [line for line in judged_lines if not line["meets"]]
    return judged_lines, failing


# --- markdown -----------------------------------------------------------------------------------

def gbps_text(v):
    return DASH if v is None else f"{v:.0f}"


def ratio_text(v):
    return DASH if v is None else f"{v:.2f}"


def speed_cell(row):
    if row is None:
        return DASH
    return f"{row['gbps']:.0f}" if valid(row) else status(row)


def md_header(report):
    ctile, peers, args = report["ctile"], report["peers"], report["args"]
    title_gpu = ctile["gpu"] if peers is None or peers["gpu"] == ctile["gpu"] else \
        f"{ctile['gpu']} / {peers['gpu']}"
    out = [f"# Bandwidth kernels: ctile against its peers, {ctile['date'][:10]}, {title_gpu}", ""]
    dates = f"{ctile['date']} (ctile run)"
    if peers is not None:
        dates += f", {peers['date']} (peers run)"
    out.append(f"- Date: {dates}")
    out.append(f"- Commit: {args.commit}")
    if peers is None or peers["gpu"] == ctile["gpu"]:
        out.append(f"- GPU: {ctile['gpu']}")
    else:
        out.append(f"- GPU: **differ**: ctile on {ctile['gpu']}, peers on {peers['gpu']}")
    out.append(f"- Copy ceiling: {ceiling_text(report)}")
    out.append("- Method: bench/README.md, \"The bandwidth suite\" (device-filled random inputs, "
               "median of single launches between CUDA events, inputs rotated past the L2; "
               "bytes = inputs read once + outputs written once).")
    out.append(f"- Bar (issue 5): ctile >= {BAR:.2f}x the copy ceiling ({BAR_SOFTMAX_WIDE:.2f}x for "
               "softmax at 262144 columns) and ctile's time <= torch.compile's; judged at "
               "32768x8192 and 32767x8191 (bf16, f16, f32), softmax 1024x262144 and rope "
               f"4x8192x64x128 and 3x4095x33x128; the other rows (the size sweep) show {DASH}. "
               "x torch.compile = torch.compile's time / ctile's (above 1: ctile is faster).")
    return out


def ceiling_text(report):
    c = report["ceilings"]
    if report["ceiling"] is None:
        return "none measured (no ratios)"
    sides = f"ctile's run {gbps_text(c['ctile'])} GB/s"
    sides += ", peers not run" if report["peers"] is None else f", peers' run {gbps_text(c['peers'])} GB/s"
    return (f"{report['ceiling']:.0f} GB/s, the higher of each run's fastest device-to-device "
            f"copy ({sides}); the ratios use it.")


def md_notes(report):
    out = []
    if report["peers"] is None:
        out.append(f"**The peers were not run** ({report['peers_missing']}): the torch eager, "
                   "torch.compile and triton columns are empty, and no judged row can meet the "
                   "bar, which needs torch.compile.")
    for w in report["warnings"]:
        out.append(f"**Warning:** {w}")
    if report["orphans"]:
        out.append(f"Peer rows with no ctile row (not in the table): {', '.join(report['orphans'])}.")
    return [x for note in out for x in ("", note)]


def md_table(report):
    out = ["", "| kernel | dtype | shape | ctile GB/s | x ceiling | torch eager GB/s | "
               "torch.compile GB/s | triton GB/s | x torch.compile | meets bar |",
           "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for line in report["lines"]:
        kernel, dtype, shape = line["key"]
        cells = [kernel, dtype, shape_text(shape), speed_cell(line["ctile"]),
                 ratio_text(line["ratio_ceiling"])]
        cells += [speed_cell(line["peers"][impl]) for impl in PEER_IMPLS]
        cells += [ratio_text(line["ratio_compile"]), line["bar"]]
        out.append("| " + " | ".join(cells) + " |")
    return out


def md_summary(report):
    judged_lines, failing = summary(report)
    out = ["", f"**{len(judged_lines) - len(failing)} of {len(judged_lines)} judged rows meet the bar.**"]
    if failing and report["peers"] is None:
        # Every judged row fails for the same reason; listing them all would only bury it.
        out += ["", "None can meet it: the peers were not run, so there is no torch.compile to compare with."]
    elif failing:
        out += ["", "Failing:", ""]
        out += [f"- {describe(line['key'])}: {line['bar']}" for line in failing]
    return out


def markdown(report):
    parts = md_header(report) + md_notes(report) + md_table(report) + md_summary(report)
    return "\n".join(parts) + "\n"


# --- SVG ----------------------------------------------------------------------------------------

SERIES = ("ctile",) + PEER_IMPLS
COLOURS = {"ctile": "#d62728", "torch": "#7f7f7f", "torch.compile": "#1f77b4", "triton": "#2ca02c"}
MARKERS = {"ctile": "circle", "torch": "square", "torch.compile": "triangle", "triton": "diamond"}
TITLES = {"ctile": "ctile", **PEER_TITLES}
PANEL_W, PANEL_H, COLUMNS = 300, 210, 4
PAD_L, PAD_R, PAD_T, PAD_B = 56, 12, 26, 34  # plot area inside a panel: room for tick labels
INSET = 8  # x of the first and last decade inside the frame, so edge points do not sit on it
FIG_TOP, FIG_BOTTOM, FIG_SIDE = 80, 30, 10
SWEEP_COLUMNS = 8192  # the size sweep varies the row count at this width: the plotted line


def plotted(row):
    return row["dtype"] == "bf16" and len(row["shape"]) == 2 and positive(row["bytes"])


def ragged(shape):
    """Rows not a multiple of 16 bytes (8 bf16): their speed is about alignment, not size, so
    the plot shows them as hollow points off the line."""
    return shape[-1] % 8 != 0


def on_line(shape):
    """Whether a point joins its series' line: only the sweep over rows of SWEEP_COLUMNS says
    how speed depends on size; softmax's wide rows have the same bytes as the main shape, and a
    line through them would only draw a vertical stroke."""
    return shape[-1] == SWEEP_COLUMNS


def plot_data(report):
    """(kernels in ctile's order, {(kernel, impl): [(bytes, gbps, shape)...]}, all bytes) for the bf16
    2-D rows. Peer rows count for every kernel ctile has a panel for, so a peer's sweep points
    show even where ctile's row is missing."""
    kernels, points, all_bytes = [], {}, []
    rows = [r for r in report["ctile"]["results"] if plotted(r)]
    for r in rows:
        if r["kernel"] not in kernels:
            kernels.append(r["kernel"])
    if report["peers"] is not None:
        rows += [r for r in report["peers"]["results"]
                 if plotted(r) and r["kernel"] in kernels and r["impl"] in PEER_IMPLS]
    for r in rows:
        all_bytes.append(r["bytes"])
        if valid(r):
            points.setdefault((r["kernel"], r["impl"]), []).append(
                (r["bytes"], r["gbps"], tuple(r["shape"])))
    for series in points.values():
        series.sort()
    return kernels, points, all_bytes


def log_range(values):
    """Whole decades around values, for a log axis whose ticks fall on powers of ten."""
    lo = 10 ** math.floor(math.log10(min(values)))
    hi = 10 ** math.ceil(math.log10(max(values)))
    return (lo, hi) if hi > lo else (lo, lo * 10)


def nice_step(span, ticks=6):
    """A step of 1, 2 or 5 times a power of ten giving about `ticks` intervals over span."""
    raw = span / ticks
    mag = 10 ** math.floor(math.log10(raw))
    return next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)


def y_range(points, ceiling):
    top = max([p[1] for series in points.values() for p in series] + [ceiling or 0]) * 1.05
    top = top if top > 0 else 1000.0
    step = nice_step(top)
    return math.ceil(top / step) * step, step


def bytes_label(v):
    """Decimal units, three digits: "100 MB", "1.61 GB"."""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if v >= size:
            return f"{v / size:.3g} {unit}"
    return f"{v:.3g} B"


def marker(shape, x, y, colour, tip, hollow=False):
    """One data point; the <title> is the tooltip a browser shows on hover."""
    r = 3.5
    if shape == "circle":
        tag, attrs = "circle", f'cx="{x:.1f}" cy="{y:.1f}" r="{r}"'
    elif shape == "square":
        tag, attrs = "rect", f'x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r}" height="{2 * r}"'
    elif shape == "triangle":
        tag, attrs = "polygon", (f'points="{x:.1f},{y - r - 0.5:.1f} {x - r:.1f},{y + r:.1f} '
                                 f'{x + r:.1f},{y + r:.1f}"')
    else:  # diamond
        tag, attrs = "polygon", (f'points="{x:.1f},{y - r - 0.5:.1f} {x + r + 0.5:.1f},{y:.1f} '
                                 f'{x:.1f},{y + r + 0.5:.1f} {x - r - 0.5:.1f},{y:.1f}"')
    # Hollow points are rings, drawn last: a filled point at nearly the same place still shows.
    paint = f'fill="none" stroke="{colour}" stroke-width="1.2"' if hollow else f'fill="{colour}"'
    return f'<{tag} class="point" {attrs} {paint}><title>{escape(tip)}</title></{tag}>'


class Axes:
    """Maps (bytes, GB/s) to a panel's coordinates: x log, y linear from 0."""

    def __init__(self, x_range, y_top):
        self.lx0, self.lx1 = (math.log10(v) for v in x_range)
        self.y_top = y_top
        self.w = PANEL_W - PAD_L - PAD_R
        self.h = PANEL_H - PAD_T - PAD_B

    def x(self, b):
        frac = (math.log10(b) - self.lx0) / (self.lx1 - self.lx0)
        return PAD_L + INSET + frac * (self.w - 2 * INSET)

    def y(self, g):
        return PAD_T + self.h - g / self.y_top * self.h


def axes_svg(ax, x_range, y_step):
    out = [f'<rect x="{PAD_L}" y="{PAD_T}" width="{ax.w}" height="{ax.h}" fill="#fff"/>']
    g = 0.0
    while g <= ax.y_top + 1e-9:
        y = ax.y(g)
        out.append(f'<line x1="{PAD_L}" y1="{y:.1f}" x2="{PAD_L + ax.w}" y2="{y:.1f}" stroke="#eee"/>')
        out.append(f'<text x="{PAD_L - 4}" y="{y + 3.5:.1f}" text-anchor="end">{g:.0f}</text>')
        g += y_step
    decade = x_range[0]
    while decade <= x_range[1] * (1 + 1e-9):
        x = ax.x(decade)
        out.append(f'<line x1="{x:.1f}" y1="{PAD_T}" x2="{x:.1f}" y2="{PAD_T + ax.h}" stroke="#eee"/>')
        out.append(f'<text x="{x:.1f}" y="{PAD_T + ax.h + 14}" text-anchor="middle">'
                   f'{bytes_label(decade)}</text>')
        decade *= 10
    out.append(f'<text x="{PAD_L - 4}" y="{PAD_T - 6}" text-anchor="end" fill="#555">GB/s</text>')
    # The frame last, so that the grid lines at the edges do not paint over it.
    out.append(f'<rect x="{PAD_L}" y="{PAD_T}" width="{ax.w}" height="{ax.h}" fill="none" stroke="#999"/>')
    return out


def ceiling_svg(ax, ceiling):
    if ceiling is None:
        return []
    y = ax.y(ceiling)
    return [f'<line class="ceiling" x1="{PAD_L}" y1="{y:.1f}" x2="{PAD_L + ax.w}" y2="{y:.1f}" '
            f'stroke="#000" stroke-width="1" stroke-dasharray="5,3"/>']


def series_svg(ax, kernel, impl, pts):
    """One implementation in one panel: a line through its aligned sizes, a point per row."""
    if not pts:
        return []
    colour = COLOURS[impl]
    out = [f'<g class="series" data-impl={quoteattr(impl)}>']
    coords = [f"{ax.x(b):.1f},{ax.y(g):.1f}" for b, g, shape in pts if on_line(shape)]
    if len(coords) > 1:
        out.append(f'<polyline points="{" ".join(coords)}" fill="none" stroke="{colour}" '
                   'stroke-width="1.5"/>')
    out += [marker(MARKERS[impl], ax.x(b), ax.y(g), colour,
                   f"{kernel} {TITLES[impl]} {shape_text(shape)}: {g:.0f} GB/s, {bytes_label(b)}",
                   hollow=ragged(shape))
            for b, g, shape in sorted(pts, key=lambda p: ragged(p[2]))]  # filled first, rings on top
    return out + ["</g>"]


def panel_svg(kernel, points, ceiling, x_range, y_top, y_step, origin):
    ax = Axes(x_range, y_top)
    out = [f'<g class="panel" data-kernel={quoteattr(kernel)} '
           f'transform="translate({origin[0]},{origin[1]})">',
           f'<text x="{PAD_L + ax.w / 2:.1f}" y="{PAD_T - 8}" text-anchor="middle" '
           f'font-weight="bold">{escape(kernel)}</text>']
    out += axes_svg(ax, x_range, y_step) + ceiling_svg(ax, ceiling)
    for impl in SERIES:
        out += series_svg(ax, kernel, impl, points.get((kernel, impl), []))
    if not any(points.get((kernel, impl)) for impl in SERIES):
        out.append(f'<text x="{PAD_L + ax.w / 2:.1f}" y="{PAD_T + ax.h / 2:.1f}" '
                   'text-anchor="middle" fill="#999">no valid rows</text>')
    return out + ["</g>"]


def legend_svg(ceiling, y):
    out, x = ['<g class="legend">'], FIG_SIDE + 8
    for impl in SERIES:
        colour = COLOURS[impl]
        out.append(f'<line x1="{x}" y1="{y}" x2="{x + 24}" y2="{y}" stroke="{colour}" stroke-width="1.5"/>')
        out.append(marker(MARKERS[impl], x + 12, y, colour, TITLES[impl]))
        out.append(f'<text x="{x + 30}" y="{y + 4}">{escape(TITLES[impl])}</text>')
        x += 40 + 7 * len(TITLES[impl])
    label = "copy ceiling" + ("" if ceiling is None else f" ({ceiling:.0f} GB/s)")
    out.append(f'<line x1="{x}" y1="{y}" x2="{x + 24}" y2="{y}" stroke="#000" stroke-dasharray="5,3"/>')
    out.append(f'<text x="{x + 30}" y="{y + 4}">{escape(label)}</text>')
    y, x = y + 18, FIG_SIDE + 8
    out.append(marker("circle", x + 12, y, "#555", "ragged", hollow=True))
    out.append(f'<text x="{x + 22}" y="{y + 4}">ragged shape (32767x8191: rows not 16-byte '
               f'multiples). Lines join the rows of {SWEEP_COLUMNS} columns; other widths '
               '(softmax) are points alone. Hover a point for its shape.</text>')
    return out + ["</g>"]


def svg(report):
    kernels, points, all_bytes = plot_data(report)
    ctile, ceiling = report["ctile"], report["ceiling"]
    rows = max(1, math.ceil(len(kernels) / COLUMNS))
    width = 2 * FIG_SIDE + COLUMNS * PANEL_W
    height = FIG_TOP + rows * PANEL_H + FIG_BOTTOM
    title = (f"Throughput against bytes moved, bf16 2-D rows: {ctile['gpu']}, "
             f"{ctile['date'][:10]}, commit {report['args'].commit}")
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="#fafafa"/>',
           f'<text x="{FIG_SIDE + 8}" y="20" font-size="14" font-weight="bold">{escape(title)}</text>']
    out += legend_svg(ceiling, 44)
    if not kernels:
        out.append(f'<text x="{width / 2:.0f}" y="{FIG_TOP + 40}" text-anchor="middle">'
                   "no bf16 2-D rows to plot</text>")
    else:
        x_range = log_range(all_bytes)
        y_top, y_step = y_range(points, ceiling)
        for i, kernel in enumerate(kernels):
            origin = (FIG_SIDE + (i % COLUMNS) * PANEL_W, FIG_TOP + (i // COLUMNS) * PANEL_H)
            out += panel_svg(kernel, points, ceiling, x_range, y_top, y_step, origin)
    out.append(f'<text x="{width / 2:.0f}" y="{height - 10}" text-anchor="middle" fill="#555">'
               "bytes moved (inputs read once + outputs written once; log scale)</text>")
    return "\n".join(out + ["</svg>"]) + "\n"


# --- JSON ---------------------------------------------------------------------------------------

def rounded(v, digits=4):
    return None if v is None else round(v, digits)


def json_row(line):
    kernel, dtype, shape = line["key"]
    return {"kernel": kernel, "dtype": dtype, "shape": list(shape),
            "ctile_gbps": line["ctile"]["gbps"] if valid(line["ctile"]) else None,
            "ratio_ceiling": rounded(line["ratio_ceiling"]),
            "peers": {impl: (row["gbps"] if valid(row) else None)
                      for impl, row in line["peers"].items()},
            "ratio_compile": rounded(line["ratio_compile"]),
            "judged": line["judged"], "meets_bar": line["meets"], "bar": line["bar"],
            "bar_factor": line["factor"]}


def json_doc(report):
    judged_lines, failing = summary(report)
    ctile, peers = report["ctile"], report["peers"]
    return {"date": ctile["date"], "commit": report["args"].commit, "gpu": ctile["gpu"],
            "peers_gpu": None if peers is None else peers["gpu"],
            "copy_ceiling_gbps": report["ceiling"], "ctile": ctile, "peers": peers,
            "rows": [json_row(line) for line in report["lines"]],
            "summary": {"judged": len(judged_lines), "meet_bar": len(judged_lines) - len(failing),
                        "failing": [describe(line["key"]) for line in failing]},
            "warnings": report["warnings"]}


# --- main ---------------------------------------------------------------------------------------

def write_text(path, text):
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise ReportError(f"{path}: cannot write: {e.strerror}") from None


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("ctile", help="bench_bandwidth's JSON")
    p.add_argument("peers", nargs="?", help="bench/peers.py's JSON (optional: without it, or "
                   "when it does not exist, the report is ctile's alone)")
    p.add_argument("--commit", default="unknown", help="the commit the run measured")
    p.add_argument("--md", help="markdown table to write (default: stdout)")
    p.add_argument("--svg", help="SVG plot to write")
    p.add_argument("--json", help="merged JSON to write")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        report = build_report(args)
        if args.peers is None:
            print("report.py: warning: no peers file given: the report is ctile's alone", file=sys.stderr)
        for w in report["warnings"]:
            print(f"report.py: warning: {w}", file=sys.stderr)
        text = markdown(report)
        if args.md:
            write_text(args.md, text)
        else:
            sys.stdout.write(text)
        if args.svg:
            write_text(args.svg, svg(report))
        if args.json:
            write_text(args.json, json.dumps(json_doc(report), indent=1) + "\n")
    except ReportError as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
