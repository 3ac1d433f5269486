"""``check --fix`` / ``--diff`` / ``--unsafe-fixes`` on files on disk, through the real command, and the pure text
edits behind them (line endings kept, IDs reproducible under HEREDOC_LSP_FIX_SEED)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tests.cli.conftest import Runner, problems

from heredoc_lsp.analysis.suppress import TextEdit
from heredoc_lsp.cli.fix import apply_edits, fix_document
from heredoc_lsp.config.model import DEFAULT_CONFIG
from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.diagnostics import Span

SEED = {"HEREDOC_LSP_FIX_SEED": "7"}
# invalid_marker (safe fix), unclosed_heredoc (unsafe fix), a collision (safe) and a line_continuation (no fix)
SCRIPT = (
    "cat <<ÉOF\r\nx\r\nÉOF\r\nchatroom post <<EOF\r\n---TITLE---\r\nt\r\n  ---TITLE---\r\nEOF\r\ncat <<END\r\ntail\r\n"
)


def test_fix_applies_safe_fixes_keeps_crlf_and_mode_and_reports_what_is_left(cli: Runner, tmp_path: Path) -> None:
    path = tmp_path / "s.cli"
    path.write_bytes(SCRIPT.encode())
    os.chmod(path, 0o751)
    result = cli("check", "--fix", "s.cli", cwd=tmp_path, env=SEED)
    assert result.returncode == 1  # the unclosed heredoc is left: its fix is unsafe
    text = path.read_bytes().decode()
    assert text.startswith("cat <<EOF\r\nx\r\nEOF\r\nchatroom post <<EOF\r\n---(UUID:")
    assert "\r\n  ---TITLE---\r\n" in text  # the colliding content line stays as it is
    assert "\n" not in text.replace("\r\n", "")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o751
    assert problems(result.stdout) == [
        "s.cli:9:7: error[unclosed_heredoc] Unclosed heredoc starting at line 9: expected 'END' but reached end of file"
    ]
    assert result.stderr.splitlines() == [
        "heredoc-lsp check: fixed s.cli: 2 (collision, invalid_marker)",
        "Checked 1 file: fixed 2, 1 error left; 1 more fixable with --unsafe-fixes",
    ]
    assert [p.name for p in tmp_path.iterdir()] == ["s.cli"]  # no temporary file left
    recheck = cli("check", "--select", "invalid_marker,collision", "s.cli", cwd=tmp_path)
    assert recheck.returncode == 0 and recheck.stdout == ""


def test_unsafe_fixes_close_the_heredoc_and_the_file_then_passes(cli: Runner, tmp_path: Path) -> None:
    path = tmp_path / "s.cli"
    path.write_bytes(SCRIPT.encode())
    result = cli("check", "--fix", "--unsafe-fixes", "s.cli", cwd=tmp_path, env=SEED)
    assert result.returncode == 0, result.stdout
    assert path.read_bytes().endswith(b"cat <<END\r\ntail\r\nEND\r\n")
    assert cli("check", "s.cli", cwd=tmp_path).returncode == 0


def test_seeded_ids_are_reproducible(cli: Runner, tmp_path: Path) -> None:
    outputs = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "s.cli").write_bytes(SCRIPT.encode())
        cli("check", "--fix", "s.cli", cwd=tmp_path / name, env=SEED)
        outputs.append((tmp_path / name / "s.cli").read_bytes())
    assert outputs[0] == outputs[1]


def test_diff_writes_nothing_prints_a_unified_diff_and_exits_1(cli: Runner, tmp_path: Path) -> None:
    path = tmp_path / "s.cli"
    path.write_bytes(SCRIPT.encode())
    result = cli("check", "--diff", "s.cli", cwd=tmp_path, env=SEED)
    assert result.returncode == 1
    assert path.read_bytes() == SCRIPT.encode()
    lines = result.stdout.splitlines()
    assert lines[:2] == ["--- a/s.cli", "+++ b/s.cli"]
    assert "-cat <<ÉOF" in lines and "+cat <<EOF" in lines  # (text mode: CRLF read as one newline)
    assert result.stderr == "Would fix 2 problems in 1 file (1 more with --unsafe-fixes)\n"
    clean = tmp_path / "ok.cli"
    clean.write_text("echo hi\n")
    nothing = cli("check", "--diff", "ok.cli", cwd=tmp_path)
    assert (nothing.returncode, nothing.stdout) == (0, "")


def test_fix_only_touches_selected_codes(cli: Runner, tmp_path: Path) -> None:
    path = tmp_path / "s.cli"
    path.write_bytes(SCRIPT.encode())
    cli("check", "--fix", "--ignore", "invalid_marker", "s.cli", cwd=tmp_path, env=SEED)
    assert path.read_bytes().startswith("cat <<ÉOF\r\n".encode())


def test_apply_edits_keeps_every_terminator_and_clamps_columns() -> None:
    text = "a\r\nbc\rd\n"
    edits = [TextEdit(Span(1, 1, 1, 99), "X"), TextEdit(Span(0, 0, 0, 0), "> ")]
    assert apply_edits(text, edits) == "> a\r\nbX\rd\n"


def test_fix_document_resolves_a_collision_with_the_given_id() -> None:
    text = "chatroom post <<EOF\n---TITLE---\nt\n  ---TITLE---\nEOF\n"
    result = fix_document(
        text, Language.CLI, DEFAULT_CONFIG, selected=lambda code: True, unsafe=False, new_id=lambda: "0badcafe"
    )
    assert result.text == "chatroom post <<EOF\n---(UUID:0badcafe)TITLE---\nt\n  ---TITLE---\nEOF\n"
    assert [d.code for d in result.fixed] == ["collision"]
    assert result.analysis.diagnostics == ()
