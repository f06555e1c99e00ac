"""`--field` keeps one line per agent whatever a value holds; a value that would break the
line comes as a JSON string, which decodes back to exactly what was stored."""

import json

import pytest

from wardian_core import identity
from wardian_core.db import open_writer
from wardian_host.cli.render import bare

DESCRIPTIONS = {
    "multi": "first line\nsecond line\r\nthird",
    "quoted": '"starts with a quote"',
    "escape": "red \x1b[31mtext",
    "separator": "one\u2028two\x85three",
    "plain": "tabs\tand C:\\paths stay as they are",
}


@pytest.fixture
def described(wardian_home) -> None:
    conn = open_writer(wardian_home)
    for name, description in DESCRIPTIONS.items():
        identity.create_agent(
            conn, class_name="C", provider="generic", workspace=None, name=name, description=description
        )
    conn.close()


def test_list_field_gives_one_line_per_agent_that_decodes_to_the_stored_value(run_wardian, described) -> None:
    result = run_wardian("agent", "list", "--field", "description")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.split("\n")
    assert lines.pop() == "" and len(lines) == len(DESCRIPTIONS)
    names = run_wardian("agent", "list", "--field", "name").stdout.split()
    shown = dict(zip(names, lines, strict=True))
    assert shown["plain"] == DESCRIPTIONS["plain"]
    for name in ("multi", "quoted", "escape", "separator"):
        assert shown[name].startswith('"') and json.loads(shown[name]) == DESCRIPTIONS[name]
        assert not any(char in shown[name] for char in "\r\x1b\x85\u2028")


def test_show_field_and_pretty_table_keep_each_agent_on_one_line(run_wardian, described) -> None:
    assert run_wardian("agent", "multi", "--field", "description").stdout == '"first line\\nsecond line\\r\\nthird"\n'
    table = run_wardian("agent", "list", "--pretty", "--fields", "name,description").stdout
    assert len(table.splitlines()) == 1 + len(DESCRIPTIONS)


@pytest.mark.parametrize("value", ["", "x", "ü", '"', "\\", "a\nb", "\x00", "\u2029", '" and \\ and \n'])
def test_a_bare_value_is_itself_or_a_json_string_of_it(value: str) -> None:
    shown = bare(value)
    assert len(shown.splitlines()) <= 1
    assert shown == value or json.loads(shown) == value
