"""`dev.py drift` turns pytest's JUnit report into one row per case: provider, version, result."""

from pathlib import Path

from script_modules import load_script

REPORT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
  <testcase classname="tests.real_cli.test_headless" name="test_turn[claude-2.1.331]" time="1"/>
  <testcase classname="tests.real_cli.test_headless" name="test_turn[codex-0.170.0]" time="1">
    <failure message="boom">trace</failure>
  </testcase>
  <testcase classname="providers.wardian-gemini.tests.test_real_cli" name="test_tool" time="1">
    <skipped message="no node"/>
  </testcase>
  <testcase classname="tests.real_cli.test_loopback_namespace" name="test_only_loopback" time="1">
    <error message="setup">trace</error>
  </testcase>
</testsuite></testsuites>
"""


def test_each_case_is_a_row_with_its_provider_version_and_outcome(tmp_path: Path) -> None:
    drift = load_script("drift")
    report = tmp_path / "report.xml"
    report.write_text(REPORT)
    versions = {
        "@anthropic-ai/claude-code": "2.1.331",
        "@openai/codex": "0.170.0",
        "@google/gemini-cli": "0.62.0",
        "opencode-ai": "1.19.0",
    }

    rows = drift.case_results(report, versions)

    assert [(r.provider, r.version, r.case, r.outcome) for r in rows] == [
        ("claude", "2.1.331", "test_turn[claude-2.1.331]", "pass"),
        ("codex", "0.170.0", "test_turn[codex-0.170.0]", "fail"),
        ("gemini", "0.62.0", "test_tool", "skip"),
        ("-", "-", "test_only_loopback", "fail"),
    ]
    lines = drift.table(rows).splitlines()
    assert lines[0].split() == ["PROVIDER", "VERSION", "CASE", "RESULT"]
    assert lines[2].split() == ["codex", "0.170.0", "test_turn[codex-0.170.0]", "fail"]
