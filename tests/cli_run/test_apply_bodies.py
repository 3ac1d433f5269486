"""``heredoc-lsp apply`` refuses a reply whose file bodies fail their language's check (exit 2, nothing written)
unless ``--allow-invalid`` (docs/bodies.md)."""

from __future__ import annotations

from pathlib import Path

from .conftest import run_text, write

REPLY = (
    '[CREATE_FILE path="ok.txt"]\nfine\n[/CREATE_FILE]\n'
    '[CREATE_FILE path="cfg.json"]\n{"a":1,}\n[/CREATE_FILE]\n'
    '[CREATE_FILE path="src/a.py"]\nprint(\n[/CREATE_FILE]\n'
    "[RUN_COMMAND]\ntouch ran\n[/RUN_COMMAND]\n"
)


def test_invalid_file_bodies_refuse_the_whole_reply(project: Path) -> None:
    write(project / "r.inbox", REPLY)
    code, out, err = run_text(["apply", "r.inbox"], project)
    assert code == 2
    assert "2 files of this reply would not be valid in its language; nothing was applied" in err
    assert "r.inbox:8:6: error[body_syntax] python: '(' was never closed" in err
    assert "r.inbox:5:" in err and "error[body_syntax] json: " in err
    assert out == ""
    assert sorted(p.name for p in project.iterdir()) == ["heredoc-lsp.toml", "r.inbox"]


def test_allow_invalid_applies_it(project: Path) -> None:
    write(project / "r.inbox", REPLY)
    code, out, _ = run_text(["apply", "r.inbox", "--allow-invalid"], project)
    assert code == 0, out
    assert (project / "src" / "a.py").read_text() == "print("
    assert (project / "ran").exists()


def test_a_suppressed_or_valid_reply_applies(project: Path) -> None:
    write(project / "r.inbox", "# heredoc-lsp: disable=body_syntax\n" + REPLY)
    assert run_text(["apply", "r.inbox"], project)[0] == 0
    write(project / "v.inbox", '[CREATE_FILE path="v.json"]\n{"a": 1}\n[/CREATE_FILE]\n')
    assert run_text(["apply", "v.inbox"], project)[0] == 0
    assert (project / "v.json").read_text() == '{"a": 1}'


def test_the_preview_shows_what_would_be_refused(project: Path) -> None:
    write(project / "r.inbox", REPLY)
    code, out, _ = run_text(["apply", "r.inbox", "--preview"], project)
    assert code == 0
    lines = out.splitlines()
    k = lines.index("Refused without --allow-invalid: files not valid in their language:")
    assert lines[k + 2] == "  r.inbox:8:6: error[body_syntax] python: '(' was never closed"
    assert sorted(p.name for p in project.iterdir()) == ["heredoc-lsp.toml", "r.inbox"]
