"""Edits of settings.toml: every form a user may write, and nothing but the one key changes."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import tomlkit
import tomlkit.exceptions

from wardian_core.settings.toml_text import UneditableError, remove_value, set_value


def test_a_value_is_replaced_in_place_keeping_its_trailing_comment() -> None:
    text = '# mine\n[sessions]\nregular = "resume"   # was fresh before\n\n[other]\nx = 1\n'
    assert set_value(text, ("sessions", "regular"), "fresh") == (
        '# mine\n[sessions]\nregular = "fresh"   # was fresh before\n\n[other]\nx = 1\n'
    )


def test_a_key_is_added_after_its_siblings_not_after_the_next_table_comment() -> None:
    text = '[providers.codex]\nexecutable = "codex"\n\n# my own table\n[mine]\nx = 1\n'
    edited = set_value(text, ("providers", "codex", "sandbox_mode"), "read-only")
    assert edited == (
        '[providers.codex]\nexecutable = "codex"\nsandbox_mode = "read-only"\n\n# my own table\n[mine]\nx = 1\n'
    )


def test_a_key_is_added_right_under_an_empty_table_header() -> None:
    text = "[host]  # tuning\n\n[mine]\nx = 1\n"
    assert set_value(text, ("host", "output_buffer_bytes"), 2097152) == (
        "[host]  # tuning\noutput_buffer_bytes = 2097152\n\n[mine]\nx = 1\n"
    )


def test_a_new_table_is_appended_when_none_exists() -> None:
    assert set_value("", ("sessions", "regular"), "fresh") == '[sessions]\nregular = "fresh"\n'
    assert set_value("x = 1", ("host", "output_buffer_bytes"), 65536) == (
        "x = 1\n\n[host]\noutput_buffer_bytes = 65536\n"
    )


def test_a_new_table_beside_an_implicit_parent_goes_at_the_end_not_under_the_next_tables_comment() -> None:
    text = '[providers.codex]\nsandbox_mode = "read-only"\n\n# my own table\n[mine]\nx = 1\n'
    assert set_value(text, ("providers", "claude", "executable"), "claude") == (
        text + '\n[providers.claude]\nexecutable = "claude"\n'
    )
    dotted = 'providers.codex.executable = "x"\n[mine]\nb = 2\n'
    assert set_value(dotted, ("providers", "claude", "executable"), "c") == (
        dotted + '\n[providers.claude]\nexecutable = "c"\n'
    )


def test_dotted_keys_are_edited_in_the_form_the_file_uses() -> None:
    text = '[providers]\ncodex.executable = "/opt/codex"\n'
    edited = set_value(text, ("providers", "codex", "sandbox_mode"), "workspace-write")
    assert edited == '[providers]\ncodex.executable = "/opt/codex"\ncodex.sandbox_mode = "workspace-write"\n'
    assert set_value(edited, ("providers", "codex", "executable"), "codex2") == (
        '[providers]\ncodex.executable = "codex2"\ncodex.sandbox_mode = "workspace-write"\n'
    )
    root = 'providers.claude.executable = "claude"  # root form\n'
    assert set_value(root, ("providers", "claude", "executable"), "c") == (
        'providers.claude.executable = "c"  # root form\n'
    )


def test_quoted_and_spaced_keys_are_recognised() -> None:
    text = '[ providers . "codex" ]\n"sandbox_mode" = \'read-only\'\n'
    # The 'literal' string stays one (tomlkit 0.15.3 does so, 0.15.2 did not: decided by Wardian).
    assert set_value(text, ("providers", "codex", "sandbox_mode"), "workspace-write") == (
        '[ providers . "codex" ]\n"sandbox_mode" = \'workspace-write\'\n'
    )


def test_a_literal_string_that_cannot_hold_the_new_text_becomes_a_basic_one() -> None:
    text = "[providers.codex]\nexecutable = '/opt/codex'   # mine\n"
    assert set_value(text, ("providers", "codex", "executable"), "/opt/o'brien/codex") == (
        '[providers.codex]\nexecutable = "/opt/o\'brien/codex"   # mine\n'
    )


def test_lookalikes_inside_multiline_strings_and_arrays_are_not_mistaken_for_keys() -> None:
    text = (
        '[mine]\nnotes = """\n[sessions]\nregular = "fresh"\n"""\n'
        "list = [\n  '[host]',  # a comment ] with a bracket\n  \"output_buffer_bytes = 1\",\n]\n"
        "literal = '''\n[sessions]'''\n"
    )
    edited = set_value(text, ("sessions", "regular"), "fresh")
    assert edited == text + '\n[sessions]\nregular = "fresh"\n'
    assert tomllib.loads(edited)["mine"] == tomllib.loads(text)["mine"]


def test_crlf_files_stay_crlf_and_a_missing_final_newline_is_handled() -> None:
    text = '[sessions]\r\nregular = "resume"\r\n[host]\r\noutput_buffer_bytes = 65536'
    edited = set_value(text, ("host", "buffer"), 1)
    assert edited == '[sessions]\r\nregular = "resume"\r\n[host]\r\noutput_buffer_bytes = 65536\r\nbuffer = 1\r\n'


def test_inline_tables_are_refused_not_rewritten() -> None:
    text = '[providers]\ncodex = { sandbox_mode = "read-only" }\n'
    with pytest.raises(UneditableError, match=r"providers\.codex"):
        set_value(text, ("providers", "codex", "sandbox_mode"), "never")
    with pytest.raises(UneditableError):
        remove_value(text, ("providers", "codex", "sandbox_mode"))


def test_remove_drops_only_the_key_line_and_its_trailing_comment() -> None:
    text = '[sessions]\n# why: I like fresh starts\nregular = "fresh"  # really\nother = 1\n'
    assert remove_value(text, ("sessions", "regular")) == "[sessions]\n# why: I like fresh starts\nother = 1\n"
    assert remove_value(text, ("host", "output_buffer_bytes")) == text


def test_a_multiline_value_is_removed_whole() -> None:
    text = "[mine]\nkeep = 1\n[providers.claude]\nexecutable = '''\n/opt/claude'''\n[after]\ny = 2\n"
    assert (
        remove_value(text, ("providers", "claude", "executable"))
        == "[mine]\nkeep = 1\n[providers.claude]\n[after]\ny = 2\n"
    )


def test_keys_under_an_array_of_tables_are_refused_not_matched() -> None:
    text = "[[sessions]]\nregular = 1\n[sessions.inner]\nx = 2\n[host]\ny = 3\n"
    with pytest.raises(UneditableError, match="sessions is an array of tables"):
        set_value(text, ("sessions", "regular"), "fresh")
    with pytest.raises(UneditableError):
        remove_value(text, ("sessions", "inner", "x"))
    assert set_value(text, ("host", "y"), 4) == text.replace("y = 3", "y = 4")


def test_strings_with_escapes_and_special_characters_are_quoted_correctly() -> None:
    path = 'C:\\Program Files\\"codex"\\codex.exe'
    edited = set_value("", ("providers", "codex", "executable"), path)
    assert tomllib.loads(edited)["providers"]["codex"]["executable"] == path


def test_reading_settings_leaves_tomlkit_unloaded_and_only_a_write_loads_it(wardian_home: Path) -> None:
    # The host reads settings at every start; tomlkit's import is paid only by `settings set|unset`.
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from wardian_core.settings import list_settings, load_settings, set_setting\n"
        "home = Path(sys.argv[1])\n"
        "load_settings(home)\n"
        "list_settings(home)\n"
        "read = 'tomlkit' in sys.modules\n"
        "set_setting(home, 'sessions.regular', 'fresh')\n"
        "print(read, 'tomlkit' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(wardian_home)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]


def test_a_file_the_toml_editor_cannot_read_is_refused_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    # No valid file is known to trip tomlkit; a stand-in parser proves the refusal path.
    def refuse(text: str) -> None:
        raise tomlkit.exceptions.ParseError(1, 1, "not for tomlkit")

    monkeypatch.setattr(tomlkit, "parse", refuse)
    with pytest.raises(UneditableError, match="cannot edit it"):
        set_value("[sessions]\nregular = 1\n", ("sessions", "regular"), "fresh")
    with pytest.raises(UneditableError):
        remove_value("[sessions]\nregular = 1\n", ("sessions", "regular"))
