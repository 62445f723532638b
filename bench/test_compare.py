#!/usr/bin/env python3
"""Tests of bench/compare.py, run as a subprocess.

Usage: python3 bench/test_compare.py [-v]      (standard library only; no GPU)

Two synthetic bench_bandwidth files: a base build and an option build whose rows are known
multiples of the base's, one row failed and one row only in the option build.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
COMPARE = os.path.join(HERE, "compare.py")


def doc(rows, ceiling):
    results = [{"kernel": k, "impl": "ctile", "dtype": "bf16", "shape": list(s), "bytes": 1, "ms": 1.0,
                "gbps": g, "ok": ok, "error": None} for k, s, g, ok in rows]
    return {"tool": "bench_bandwidth", "gpu": "test", "date": "today",
            "copy_ceiling": [{"bytes": 1, "ms": 1.0, "gbps": ceiling - 10}, {"bytes": 2, "ms": 1.0, "gbps": ceiling}],
            "results": results}


class CompareTest(unittest.TestCase):
    def run_compare(self, *docs):
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for name, d in docs:
                paths.append(os.path.join(tmp, name))
                with open(paths[-1], "w") as f:
                    json.dump(d, f)
            out = subprocess.run([sys.executable, COMPARE, *paths], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        return out.stdout

    def test_columns_ratios_and_missing_rows(self):
        base = doc([("add", (4, 8), 1000.0, True), ("row_sum", (4, 8), 800.0, True), ("rope", (1, 2), 500.0, True)],
                   4200)
        option = doc([("add", (4, 8), 1100.0, True), ("row_sum", (4, 8), 0.0, False), ("col_sum", (4, 8), 300.0, True)],
                     4100)
        text = self.run_compare(("2026-01-01-options-bench_bandwidth.json", base),
                                ("2026-01-01-options-bench_bandwidth_load_index.json", option))
        lines = text.splitlines()
        self.assertEqual(lines[0], "| kernel | dtype | shape | default | load_index | load_index / default |")
        self.assertIn("| add | bf16 | 4x8 | 1000 | 1100 | 1.10 |", lines)
        self.assertIn("| row_sum | bf16 | 4x8 | 800 | nan | nan |", lines)
        self.assertIn("| rope | bf16 | 1x2 | 500 | - | - |", lines)
        self.assertIn("| col_sum | bf16 | 4x8 | - | 300 | - |", lines)
        self.assertIn("Copy ceilings (GB/s): default 4200, load_index 4100", text)

    def test_merged_reports_give_their_ctile_run(self):
        base = doc([("add", (4, 8), 1000.0, True)], 4200)
        after = doc([("add", (4, 8), 1500.0, True)], 4000)
        merged = {"date": "today", "ctile": after, "peers": {}, "rows": [{"kernel": "add", "ctile_gbps": 1.0}]}
        text = self.run_compare(("2026-01-01-bandwidth-before.json", base), ("2026-01-01-bandwidth.json", merged))
        self.assertIn("| add | bf16 | 4x8 | 1000 | 1500 | 1.50 |", text.splitlines())
        self.assertIn("Copy ceilings (GB/s): before 4200, default 4000", text)

    def test_other_json_is_refused_by_name(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "gemm.json")
            with open(path, "w") as f:
                json.dump({"rows": []}, f)
            out = subprocess.run([sys.executable, COMPARE, path, path], capture_output=True, text=True)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("gemm.json is neither a bench_bandwidth file nor report.py's merged one", out.stderr)

    def test_one_file_is_refused(self):
        out = subprocess.run([sys.executable, COMPARE, os.devnull], capture_output=True, text=True)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("Compares bench_bandwidth JSON files", out.stderr)


if __name__ == "__main__":
    unittest.main()
