"""The terminal server's recorder: bounded by rotation, read whole, exported as asciicast v2."""

import json
from pathlib import Path

from wardian_core import asciicast
from wardian_core import recording_format as fmt
from wardian_host.terminal.server.recorder import Recorder


def test_a_recording_stays_within_its_bound_and_keeps_the_newest_output(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "rec", max_bytes=8192, rows=40, cols=120)
    offset = 0
    for line in range(400):  # about 12 KB of output, half again the bound
        piece = f"line {line:04d}\r\n".encode()
        recorder.output(offset, piece)
        offset += len(piece)
    recorder.close()
    segments = fmt.segments(tmp_path / "rec")
    assert sum(segment.stat().st_size for segment in segments) <= 8192
    assert len(segments) <= fmt.SEGMENTS_PER_BOUND
    kept = b"".join(record.payload for record in fmt.read(tmp_path / "rec") if record.kind == fmt.OUTPUT)
    assert kept.endswith(b"line 0399\r\n") and b"line 0000" not in kept
    # Every segment reads on its own: the oldest kept one starts with the terminal's size.
    first = next(fmt.read_segment(segments[0]))
    assert first.kind == fmt.HEAD and first.size() == (40, 120)


def test_a_relaunch_goes_on_in_new_segments_beside_the_old(tmp_path: Path) -> None:
    for word in (b"first launch", b"second launch"):
        recorder = Recorder(tmp_path / "rec", max_bytes=1 << 20, rows=24, cols=80)
        recorder.output(0, word)
        recorder.close()
    assert [record.payload for record in fmt.read(tmp_path / "rec") if record.kind == fmt.OUTPUT] == [
        b"first launch",
        b"second launch",
    ]


def test_a_record_cut_short_by_a_killed_server_is_left_out(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "rec", max_bytes=1 << 20, rows=24, cols=80)
    recorder.output(0, b"whole")
    recorder.output(5, b"cut short")
    recorder.close()
    segment = fmt.segments(tmp_path / "rec")[0]
    segment.write_bytes(segment.read_bytes()[:-3])
    assert [record.payload for record in fmt.read(tmp_path / "rec") if record.kind == fmt.OUTPUT] == [b"whole"]


def test_a_full_disk_stops_the_recording_not_the_agent(tmp_path: Path) -> None:
    (tmp_path / "rec").write_text("a file where the folder should be")
    recorder = Recorder(tmp_path / "rec", max_bytes=1 << 20, rows=24, cols=80)
    recorder.output(0, b"lost")  # no exception: the server's read loop goes on
    assert not recorder.recording


def test_the_export_joins_a_character_a_read_cut_in_two_and_keeps_resizes() -> None:
    snowman = "☃".encode()
    records = [
        fmt.Record(fmt.HEAD, 100.0, 0, fmt.size_payload(24, 80)),
        fmt.Record(fmt.OUTPUT, 100.0, 0, b"a" + snowman[:1]),
        fmt.Record(fmt.OUTPUT, 100.5, 2, snowman[1:] + b"b"),
        fmt.Record(fmt.RESIZE, 101.0, 5, fmt.size_payload(30, 100)),
    ]
    header, *events = [json.loads(line) for line in asciicast.lines(records)]
    assert header == {"version": 2, "width": 80, "height": 24, "timestamp": 100}
    assert events == [[0.0, "o", "a"], [0.5, "o", "☃b"], [1.0, "r", "100x30"]]


def test_the_export_keeps_only_the_span_asked_for() -> None:
    records = [
        fmt.Record(fmt.HEAD, 100.0, 0, fmt.size_payload(24, 80)),
        fmt.Record(fmt.OUTPUT, 100.0, 0, b"early"),
        fmt.Record(fmt.OUTPUT, 200.0, 5, b"middle"),
        fmt.Record(fmt.OUTPUT, 300.0, 11, b"late"),
    ]
    header, *events = [json.loads(line) for line in asciicast.lines(records, since=150.0, until=250.0)]
    assert header["timestamp"] == 200
    assert events == [[0.0, "o", "middle"]]
