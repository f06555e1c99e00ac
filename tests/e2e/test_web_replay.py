"""The web view replays an agent's recording in a real browser (Debian's chromium): the tile's
Replay link opens the page, and asciinema-player draws what the agent printed."""

from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from browser import chromium_page, open_view, web_address
from recording_talker import Talker, wait_recorded


def test_the_replay_page_plays_what_the_agent_printed(
    run_wardian: Callable[..., Any], generic_spawn_args: Callable[..., list[str]], tmp_path: Path, wardian_home: Path
) -> None:
    folder = tmp_path / "talk"
    folder.mkdir()
    talker = Talker(folder)
    spawned = run_wardian(*generic_spawn_args("talk", *talker.argv()))
    assert spawned.returncode == 0, spawned.stderr
    talker.say("replayed-in-the-browser")
    wait_recorded(wardian_home, spawned.json()["agent"]["uuid"], b"said:replayed-in-the-browser")
    with chromium_page() as page:
        open_view(page, lambda: web_address(run_wardian))
        replay = page.locator("#grid a.replay").first
        page.goto(urljoin(page.url, replay.get_attribute("href")))
        page.wait_for_function(
            "document.getElementById('player').textContent.replace(/\\s/g, '').includes('said:replayed-in-the-browser')"
        )
        assert page.locator("#replay-error").is_hidden()
        assert "talk" in page.locator("#replay-title").inner_text()


def test_the_replay_of_an_agent_with_no_recording_says_why(
    run_wardian: Callable[..., Any], generic_spawn_args: Callable[..., list[str]], tmp_path: Path
) -> None:
    folder = tmp_path / "talk"
    folder.mkdir()
    talker = Talker(folder)
    spawned = run_wardian(*generic_spawn_args("quiet", "--no-recording", *talker.argv()))
    assert spawned.returncode == 0, spawned.stderr
    with chromium_page() as page:
        open_view(page, lambda: web_address(run_wardian))
        page.goto(urljoin(page.url, f"/replay?agent={spawned.json()['agent']['uuid']}"))
        page.wait_for_selector("#replay-error:not([hidden])")
        assert "no recording" in page.locator("#replay-error").inner_text()
