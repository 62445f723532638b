#!/usr/bin/env python3
"""Tests of bench/report.py, run as a subprocess the way scripts/bench runs it.

Usage: python3 bench/test_report.py [-v]      (standard library only; no GPU)

Inputs: the real ctile run in bench/results/2026-12-02-bandwidth-ctile.json, extended with a
few rows that run does not have (the size sweep, softmax at 262144 columns), and a synthetic
peers file built so that each outcome of the bar occurs at a known row.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "report.py")
REAL_CTILE = os.path.join(HERE, "results", "2026-12-02-bandwidth-ctile.json")
SVG_NS = "{http://www.w3.org/2000/svg}"

PEERS_CEILING = 4300.0  # above ctile's 4239.35: the report must use the higher one
SOFTMAX_WIDE_BYTES = 1024 * 262144 * 2 * 2  # bf16 / f16 in + out


def row(kernel, impl, dtype, shape, nbytes, ms, ok=True, error=None):
    """A result row as bench_bandwidth and peers.py write them (gbps from bytes and ms)."""
    gbps = None if ms is None else nbytes / ms / 1e6
    return {"kernel": kernel, "impl": impl, "dtype": dtype, "shape": list(shape), "bytes": nbytes,
            "ms": ms, "gbps": gbps, "ok": ok, "error": error}


def ms_at(nbytes, gbps):
    return nbytes / gbps / 1e6


def ctile_doc():
    """The real run plus rows it lacks: two sweep sizes of add, a softmax sweep row and the two
    softmax rows at 262144 columns that the 0.80x exception is about."""
    with open(REAL_CTILE) as f:
        doc = json.load(f)
    extra = [
        row("add", "ctile", "bf16", (2048, 8192), 3 * 2048 * 8192 * 2, ms_at(3 * 2048 * 8192 * 2, 3000)),
        row("add", "ctile", "bf16", (8192, 8192), 3 * 8192 * 8192 * 2, ms_at(3 * 8192 * 8192 * 2, 3800)),
        row("softmax", "ctile", "bf16", (4096, 65536), 2**30, ms_at(2**30, 3000)),
        # 0.85x the ceiling: passes the 0.80x bar, would fail the usual 0.90x one.
        row("softmax", "ctile", "bf16", (1024, 262144), SOFTMAX_WIDE_BYTES,
            ms_at(SOFTMAX_WIDE_BYTES, 0.85 * PEERS_CEILING)),
        # 0.78x: fails even the 0.80x bar.
        row("softmax", "ctile", "f16", (1024, 262144), SOFTMAX_WIDE_BYTES,
            ms_at(SOFTMAX_WIDE_BYTES, 0.78 * PEERS_CEILING)),
    ]
    doc["results"] += extra
    return doc


def ctile_row(doc, kernel, dtype, shape):
    return next(r for r in doc["results"]
                if (r["kernel"], r["dtype"], tuple(r["shape"])) == (kernel, dtype, tuple(shape)))


def peers_doc(ctile):
    """One peer row set per bar outcome; times are relative to ctile's own time at that row."""
    main, ragged = (32768, 8192), (32767, 8191)
    rows = []

    def peer(kernel, impl, dtype, shape, factor=None, **kw):
        """A peer taking factor x ctile's time (kw: ok, error; ms None when error)."""
        c = ctile_row(ctile, kernel, dtype, shape)
        ms = None if factor is None else c["ms"] * factor
        rows.append(row(kernel, impl, dtype, shape, c["bytes"], ms, **kw))

    # add main: passes (0.975x ceiling; torch.compile 0.40 ms against ctile's 0.384192 ms).
    rows.append(row("add", "torch", "bf16", main, 1610612736, 0.5))
    rows.append(row("add", "torch.compile", "bf16", main, 1610612736, 0.4))
    rows.append(row("add", "triton", "bf16", main, 1610612736, None, ok=False,
                    error="CompilationError: out of resources"))
    # scale main: 0.923x the ceiling, but torch.compile is faster.
    peer("scale", "torch.compile", "bf16", main, 0.9)
    # bias_gelu main: 0.602x the ceiling; torch.compile slower.
    peer("bias_gelu", "torch.compile", "bf16", main, 1.5)
    # swiglu ragged: fails both ways.
    peer("swiglu", "torch.compile", "bf16", ragged, 0.7)
    # mul main: torch.compile checked fine, then failed timing (ok true, error set, no ms).
    peer("mul", "torch.compile", "bf16", main, None, error="OutOfMemoryError: CUDA out of memory")
    peer("mul", "triton", "bf16", main, 1.1)
    # mul ragged: torch.compile timed but wrong.
    peer("mul", "torch.compile", "bf16", ragged, 1.2, ok=False)
    # softmax at 262144 columns: torch.compile slower at both; bf16 passes at 0.85x, f16 fails.
    peer("softmax", "torch.compile", "bf16", (1024, 262144), 1.3)
    peer("softmax", "torch.compile", "f16", (1024, 262144), 1.3)
    # add's sweep, for the plot; the sweep is never judged, even with a faster torch.compile.
    for shape in [(2048, 8192), (8192, 8192)]:
        peer("add", "torch.compile", "bf16", shape, 0.9)
        peer("add", "torch", "bf16", shape, 2.0)
    # A peer row ctile has no row for: not in the table, named in a note.
    rows.append(row("add", "torch", "f32", (32768, 8192), 3 * 2**28 * 4, 1.0))
    return {"tool": "peers", "gpu": ctile["gpu"], "torch": "2.9.0", "triton": "3.5.0",
            "date": "2026-12-02T22:30:00+00:00", "seed": 1, "reps": 50, "warmup": 10,
            "copy_ceiling": [{"bytes": 2**30, "ms": 2**30 / PEERS_CEILING / 1e6, "gbps": PEERS_CEILING}],
            "results": rows}


class ReportCase(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp, name)

    def write(self, name, content):
        with open(self.path(name), "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        return self.path(name)

    def run_report(self, *args):
        return subprocess.run([sys.executable, REPORT, *args], cwd=self.tmp, capture_output=True,
                              text=True, timeout=60)

    def run_ok(self, ctile, peers=None, commit="abc1234"):
        args = [ctile] + ([peers] if peers else [])
        p = self.run_report(*args, "--commit", commit, "--md", self.path("out.md"),
                            "--svg", self.path("out.svg"), "--json", self.path("out.json"))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.path("out.md"), encoding="utf-8") as f:
            md = f.read()
        with open(self.path("out.json"), encoding="utf-8") as f:
            merged = json.load(f)
        return p, md, merged

    @staticmethod
    def rows_by_key(merged):
        return {(r["kernel"], r["dtype"], tuple(r["shape"])): r for r in merged["rows"]}


class WithPeers(ReportCase):
    def setUp(self):
        super().setUp()
        self.ctile = ctile_doc()
        self.peers = peers_doc(self.ctile)
        self.p, self.md, self.merged = self.run_ok(self.write("ctile.json", self.ctile),
                                                   self.write("peers.json", self.peers))
        self.rows = self.rows_by_key(self.merged)

    def bar(self, kernel, dtype, shape):
        r = self.rows[(kernel, dtype, tuple(shape))]
        return r["meets_bar"], r["bar"]

    def test_ceiling_is_the_higher_of_both_runs(self):
        self.assertEqual(self.merged["copy_ceiling_gbps"], PEERS_CEILING)
        self.assertIn("4300 GB/s", self.md)
        self.assertIn("ctile's run 4239 GB/s", self.md)
        self.assertIn("peers' run 4300 GB/s", self.md)
        add = self.rows[("add", "bf16", (32768, 8192))]
        self.assertAlmostEqual(add["ratio_ceiling"], 4192.21 / PEERS_CEILING, places=4)

    def test_pass(self):
        self.assertEqual(self.bar("add", "bf16", (32768, 8192)), (True, "yes"))
        add = self.rows[("add", "bf16", (32768, 8192))]
        self.assertAlmostEqual(add["ratio_compile"], 0.4 / 0.384192, places=4)
        self.assertEqual(add["peers"]["triton"], None)  # errored
        self.assertAlmostEqual(add["peers"]["torch"], 1610612736 / 0.5 / 1e6)

    def test_fails_on_ceiling(self):
        self.assertEqual(self.bar("bias_gelu", "bf16", (32768, 8192)),
                         (False, "no: 0.602x < 0.90x ceiling"))

    def test_fails_against_torch_compile(self):
        self.assertEqual(self.bar("scale", "bf16", (32768, 8192)),
                         (False, "no: slower than torch.compile (0.900x)"))

    def test_fails_both_ways(self):
        self.assertEqual(self.bar("swiglu", "bf16", (32767, 8191)),
                         (False, "no: 0.869x < 0.90x ceiling; slower than torch.compile (0.700x)"))

    def test_errored_or_wrong_torch_compile_is_no_comparison(self):
        self.assertEqual(self.bar("mul", "bf16", (32768, 8192)), (False, "n/a (no torch.compile)"))
        self.assertEqual(self.bar("mul", "bf16", (32767, 8191)), (False, "n/a (no torch.compile)"))
        self.assertIsNone(self.rows[("mul", "bf16", (32767, 8191))]["peers"]["torch.compile"])
        self.assertIsNone(self.rows[("mul", "bf16", (32767, 8191))]["ratio_compile"])

    def test_no_peer_row_at_all(self):
        self.assertEqual(self.bar("rope", "bf16", (4, 8192, 64, 128)), (False, "n/a (no torch.compile)"))

    def test_softmax_wide_uses_080(self):
        self.assertEqual(self.bar("softmax", "bf16", (1024, 262144)), (True, "yes"))
        self.assertEqual(self.rows[("softmax", "bf16", (1024, 262144))]["bar_factor"], 0.8)
        self.assertEqual(self.bar("softmax", "f16", (1024, 262144)),
                         (False, "no: 0.780x < 0.80x ceiling"))
        self.assertEqual(self.rows[("softmax", "bf16", (32768, 8192))]["bar_factor"], 0.9)

    def test_sweep_rows_are_not_judged(self):
        for key in [("add", "bf16", (2048, 8192)), ("add", "bf16", (8192, 8192)),
                    ("softmax", "bf16", (4096, 65536))]:
            r = self.rows[key]
            self.assertFalse(r["judged"], key)
            self.assertIsNone(r["meets_bar"], key)
            self.assertEqual(r["bar"], "—", key)
        self.assertIn("| add | bf16 | 2048x8192 | 3000 | 0.70 | 1500 | 3333 | — | 0.90 | — |", self.md)

    def test_rows_follow_ctile_order(self):
        keys = [(r["kernel"], r["dtype"], r["shape"]) for r in self.ctile["results"]]
        self.assertEqual([(r["kernel"], r["dtype"], r["shape"]) for r in self.merged["rows"]], keys)
        self.assertNotIn(("add", "f32", (32768, 8192)), self.rows)  # peers-only: not a table row

    def test_markdown_table_rows(self):
        md = self.md
        self.assertIn("| kernel | dtype | shape | ctile GB/s | x ceiling | torch eager GB/s | "
                      "torch.compile GB/s | triton GB/s | x torch.compile | meets bar |", md)
        self.assertIn("| add | bf16 | 32768x8192 | 4192 | 0.97 | 3221 | 4027 | error | 1.04 | yes |", md)
        # triton takes 1.1x ctile's time: 4179.68 / 1.1 = 3800 GB/s.
        self.assertIn("| mul | bf16 | 32768x8192 | 4180 | 0.97 | — | error | 3800 | — | "
                      "n/a (no torch.compile) |", md)
        self.assertIn("| mul | bf16 | 32767x8191 | 4189 | 0.97 | — | wrong | — | — | "
                      "n/a (no torch.compile) |", md)
        self.assertIn("| bias_gelu | bf16 | 32768x8192 | 2590 | 0.60 | — | 1727 | — | 1.50 | "
                      "no: 0.602x < 0.90x ceiling |", md)
        self.assertIn("| rope | bf16 | 4x8192x64x128 | 2735 | 0.64 | — | — | — | — | "
                      "n/a (no torch.compile) |", md)
        table = [l for l in md.splitlines()
                 if l.startswith("| ") and not l.startswith(("| kernel", "| ---"))]
        self.assertEqual(len(table), len(self.ctile["results"]))

    def test_header(self):
        self.assertIn("Commit: abc1234", self.md)
        self.assertIn("GPU: NVIDIA H200", self.md)
        self.assertIn("2026-12-02T21:48:41Z (ctile run)", self.md)
        self.assertIn("2026-12-02T22:30:00+00:00 (peers run)", self.md)
        self.assertIn("bench/README.md", self.md)
        self.assertNotIn("Warning", self.md)
        self.assertIn("add f32 32768x8192", self.md)  # the peers-only row, named in a note

    def test_summary(self):
        self.assertIn("**2 of 36 judged rows meet the bar.**", self.md)
        self.assertEqual(self.merged["summary"]["judged"], 36)
        self.assertEqual(self.merged["summary"]["meet_bar"], 2)
        failing = self.merged["summary"]["failing"]
        self.assertEqual(len(failing), 34)
        self.assertNotIn("add bf16 32768x8192", failing)
        self.assertNotIn("softmax bf16 1024x262144", failing)
        self.assertIn("- scale bf16 32768x8192: no: slower than torch.compile (0.900x)", self.md)
        self.assertIn("- softmax f16 1024x262144: no: 0.780x < 0.80x ceiling", self.md)

    def test_merged_json(self):
        m = self.merged
        self.assertEqual(m["commit"], "abc1234")
        self.assertEqual(m["gpu"], "NVIDIA H200")
        self.assertEqual(m["date"], self.ctile["date"])
        self.assertEqual(m["ctile"], self.ctile)
        self.assertEqual(m["peers"], self.peers)
        for r in m["rows"]:
            self.assertEqual(set(r["peers"]), {"torch", "torch.compile", "triton"})
            self.assertEqual(r["judged"], r["meets_bar"] is not None)

    def test_svg(self):
        root = ET.parse(self.path("out.svg")).getroot()
        self.assertEqual(root.tag, SVG_NS + "svg")
        panels = root.findall(f"{SVG_NS}g[@class='panel']")
        # One per kernel with bf16 2-D rows, in ctile's order: every kernel but rope.
        kernels = list(dict.fromkeys(r["kernel"] for r in self.ctile["results"] if len(r["shape"]) == 2))
        self.assertEqual([p.get("data-kernel") for p in panels], kernels)
        self.assertNotIn("rope", kernels)
        for p in panels:
            self.assertEqual(len(p.findall(f"{SVG_NS}line[@class='ceiling']")), 1, p.get("data-kernel"))
            self.assertTrue(p.findall(f"{SVG_NS}text"))  # tick labels
        series = {p.get("data-kernel"): {s.get("data-impl"): s
                                         for s in p.findall(f"{SVG_NS}g[@class='series']")}
                  for p in panels}
        add = series["add"]
        self.assertEqual(list(add), ["ctile", "torch", "torch.compile"])  # triton errored
        # Points: ctile at 2 sweep sizes, main and ragged; torch and torch.compile at 2 sweep
        # sizes and main. Ragged points are hollow and off the line.
        points = {impl: s.findall(f"{SVG_NS}*[@class='point']") for impl, s in add.items()}
        self.assertEqual({impl: len(p) for impl, p in points.items()},
                         {"ctile": 4, "torch": 3, "torch.compile": 3})
        self.assertEqual([p.get("fill") for p in points["ctile"]].count("none"), 1)
        lines = {impl: s.find(f"{SVG_NS}polyline").get("points").split() for impl, s in add.items()}
        self.assertEqual({impl: len(p) for impl, p in lines.items()},
                         {"ctile": 3, "torch": 3, "torch.compile": 3})
        for impl, pts in lines.items():
            xs = [float(v.split(",")[0]) for v in pts]
            self.assertEqual(xs, sorted(xs), impl)  # sorted by bytes
            self.assertGreater(xs[-1] - xs[0], 50, impl)  # 100 MB to 1.6 GB, log axis: well apart
        # Every speed in the add panel is below the ceiling, so every point is below its line
        # (a larger y).
        add_panel = panels[0]
        ceiling_y = float(add_panel.find(f"{SVG_NS}line[@class='ceiling']").get("y1"))
        ys = [float(v.split(",")[1]) for pts in lines.values() for v in pts]
        self.assertTrue(all(y > ceiling_y for y in ys))
        # torch.compile errored at mul's main shape and was wrong at the ragged one: not plotted.
        self.assertEqual(list(series["mul"]), ["ctile", "triton"])
        # softmax: the three aligned rows share 1.07 GB; only 32768x8192 is on the 8192-column
        # line, which, with one point, is not drawn; its four points are.
        soft = series["softmax"]["ctile"]
        self.assertIsNone(soft.find(f"{SVG_NS}polyline"))
        self.assertEqual(len(soft.findall(f"{SVG_NS}*[@class='point']")), 4)
        # A ragged-only series has its point but no line.
        self.assertIsNone(series["swiglu"]["torch.compile"].find(f"{SVG_NS}polyline"))
        self.assertEqual(len(series["swiglu"]["torch.compile"].findall(f"{SVG_NS}*[@class='point']")), 1)
        legend = " ".join(t.text or "" for t in root.iter(SVG_NS + "text"))
        for label in ("ctile", "torch eager", "torch.compile", "triton", "copy ceiling"):
            self.assertIn(label, legend)


class GpuMismatch(ReportCase):
    def test_warns_in_report_and_stderr(self):
        ctile = ctile_doc()
        peers = peers_doc(ctile)
        peers["gpu"] = "NVIDIA H100 80GB HBM3"
        p, md, merged = self.run_ok(self.write("c.json", ctile), self.write("p.json", peers))
        self.assertIn("**Warning:**", md)
        self.assertIn("NVIDIA H100 80GB HBM3", md)
        self.assertIn("not valid", md)
        self.assertIn("NVIDIA H100 80GB HBM3", p.stderr)
        self.assertEqual(merged["peers_gpu"], "NVIDIA H100 80GB HBM3")
        self.assertTrue(any("H100" in w for w in merged["warnings"]))


class CtileOnly(ReportCase):
    def check_ctile_only(self, p, md, merged):
        with open(REAL_CTILE) as f:
            real = json.load(f)
        self.assertIn("peers", p.stderr)
        self.assertIn("The peers were not run", md)
        self.assertIsNone(merged["peers"])
        self.assertEqual(merged["copy_ceiling_gbps"], 4239.35)
        self.assertEqual(len(merged["rows"]), len(real["results"]))
        for r in merged["rows"]:
            self.assertTrue(r["judged"])  # the real run is --quick: main and ragged shapes only
            self.assertEqual((r["meets_bar"], r["bar"]), (False, "n/a (no torch.compile)"))
            self.assertEqual(r["peers"], {"torch": None, "torch.compile": None, "triton": None})
            self.assertIsNone(r["ratio_compile"])
        self.assertIn("**0 of 34 judged rows meet the bar.**", md)
        self.assertIn("| add | bf16 | 32768x8192 | 4192 | 0.99 | — | — | — | — | "
                      "n/a (no torch.compile) |", md)
        ET.parse(self.path("out.svg"))

    def test_without_peers_argument(self):
        self.check_ctile_only(*self.run_ok(REAL_CTILE))

    def test_missing_peers_file_warns(self):
        missing = self.path("peers.json")
        p, md, merged = self.run_ok(REAL_CTILE, missing)
        self.assertIn(f"warning: {missing} does not exist", p.stderr)
        self.assertIn(missing, md)
        self.check_ctile_only(p, md, merged)

    def test_ctile_rows_that_failed(self):
        doc = ctile_doc()
        doc["results"][0].update(ms=None, gbps=None, ok=False, error="output still holds poison (NaN)")
        doc["results"][1]["ok"] = False  # timed, but wrong
        doc["results"].append(dict(doc["results"][2], ms=99.0))  # a second mul main row
        p, md, merged = self.run_ok(self.write("c.json", doc))
        rows = merged["rows"]
        self.assertEqual((rows[0]["meets_bar"], rows[0]["bar"]), (False, "no (ctile error)"))
        self.assertEqual((rows[1]["meets_bar"], rows[1]["bar"]), (False, "no (ctile wrong)"))
        self.assertIsNone(rows[0]["ctile_gbps"])
        self.assertIsNone(rows[1]["ratio_ceiling"])
        self.assertIn("| add | bf16 | 32768x8192 | error | — |", md)
        self.assertIn("| add | bf16 | 32767x8191 | wrong | — |", md)
        self.assertIn("a second ctile row for mul bf16 32768x8192; the first is used", p.stderr)
        self.assertEqual(len(rows), len(doc["results"]) - 1)
        self.assertEqual(rows[2]["ctile_gbps"], 4179.68)  # the first mul main row, not the 99 ms one

    def test_markdown_to_stdout_without_md(self):
        p = self.run_report(REAL_CTILE)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("| rope | bf16 | 3x4095x33x128 | 1072 | 0.25 |", p.stdout)


class BadInput(ReportCase):
    def assert_fails(self, args, *needles):
        p = self.run_report(*args, "--md", self.path("out.md"))
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        for needle in needles:
            self.assertIn(needle, p.stderr)
        self.assertFalse(os.path.exists(self.path("out.md")))  # nothing half-written

    def test_missing_ctile_file(self):
        missing = self.path("nope.json")
        self.assert_fails([missing], missing, "no such file")

    def test_invalid_json(self):
        bad = self.write("ctile.json", '{"tool": "ctile", "results": [')
        self.assert_fails([bad], bad, "not valid JSON", "line 1")

    def test_wrong_tool(self):
        peers = self.write("peers.json", peers_doc(ctile_doc()))
        self.assert_fails([peers], peers, '"tool" is "peers", expected "ctile"')
        ctile = self.write("ctile.json", ctile_doc())
        self.assert_fails([ctile, ctile], ctile, '"tool" is "ctile", expected "peers"')

    def test_missing_top_key(self):
        doc = ctile_doc()
        del doc["results"]
        bad = self.write("ctile.json", doc)
        self.assert_fails([bad], bad, 'missing key "results"')

    def test_missing_row_key(self):
        doc = ctile_doc()
        del doc["results"][3]["ms"]
        bad = self.write("ctile.json", doc)
        self.assert_fails([bad], bad, "results[3]", 'missing key "ms"')

    def test_wrong_type(self):
        doc = ctile_doc()
        doc["results"][0]["shape"] = "32768x8192"
        bad = self.write("ctile.json", doc)
        self.assert_fails([bad], bad, "results[0]", '"shape"')

    def test_not_an_object(self):
        bad = self.write("ctile.json", [1, 2])
        self.assert_fails([bad], bad, "expected a JSON object")

    def test_invalid_peers_file_is_an_error_not_a_warning(self):
        bad = self.write("peers.json", "not json")
        self.assert_fails([REAL_CTILE, bad], bad, "not valid JSON")

    def test_unwritable_output(self):
        out = self.path("no/such/dir/out.md")
        p = self.run_report(REAL_CTILE, "--md", out)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"{out}: cannot write", p.stderr)
        self.assertNotIn("Traceback", p.stderr)

    def test_peers_missing_key(self):
        doc = peers_doc(ctile_doc())
        del doc["copy_ceiling"]
        bad = self.write("peers.json", doc)
        self.assert_fails([REAL_CTILE, bad], bad, 'missing key "copy_ceiling"')


if __name__ == "__main__":
    unittest.main()
