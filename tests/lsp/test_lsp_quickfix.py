"""Quick fixes end to end: each diagnostic kind with non-ASCII text before it, the action offered with the
diagnostics it fixes, its edit in the form the client supports, and the result after applying it."""

from __future__ import annotations

import re

import pytest
from lsp_harness import RecordingClient, apply_action, expect_range
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def fix(client: RecordingClient, text: str, code: str, title: str, **open_args: str) -> str:
    """Open ``text``, take the one ``code`` diagnostic, apply the action titled ``title``; the new text, which has
    no diagnostics."""
    uri = client.open(text, **open_args)
    diags = [d for d in await client.diagnostics_of(uri) if d.code == code]
    assert len(diags) == 1, diags
    actions = await client.actions(uri, diags[0].range)
    titles = [a.title for a in actions]
    chosen = [a for a in actions if re.fullmatch(title, a.title)]
    assert len(chosen) == 1, titles
    action = chosen[0]
    assert action.kind == types.CodeActionKind.QuickFix
    assert action.diagnostics is not None and [d.code for d in action.diagnostics] == [code]
    assert action.diagnostics[0].range == diags[0].range
    new = await apply_action(client, uri, text, action)
    assert await client.diagnostics_of(uri) == []  # the fix leaves no problem behind
    return new


async def test_close_unclosed_heredoc(client: RecordingClient) -> None:
    new = await fix(client, "é😀 <<EOF\nbody é😀\n", "unclosed_heredoc", "Close the heredoc with a line 'EOF'")
    assert new == "é😀 <<EOF\nbody é😀\nEOF\n"


async def test_close_unclosed_heredoc_without_final_newline(client: RecordingClient) -> None:
    new = await fix(client, "é😀 <<-END\n\tbody é😀", "unclosed_heredoc", "Close the heredoc with a line 'END'")
    assert new == "é😀 <<-END\n\tbody é😀\nEND"


async def test_close_unclosed_heredoc_keeps_crlf(client: RecordingClient) -> None:
    new = await fix(client, "é😀 <<EOF\r\nbody\r\n", "unclosed_heredoc", "Close the heredoc with a line 'EOF'")
    assert new == "é😀 <<EOF\r\nbody\r\nEOF\r\n"


async def test_close_unclosed_inbox_block(client: RecordingClient) -> None:
    text = 'é😀 prose\n[CREATE_FILE path="é😀.txt"]\ncontent\n'
    new = await fix(
        client, text, "unclosed", r"Close the block with \[/CREATE_FILE\]", suffix=".inbox", language_id="agent-inbox"
    )
    assert new == text + "[/CREATE_FILE]\n"


async def test_switch_to_uuid_delimiters(client: RecordingClient) -> None:
    text = "tool task é😀 <<EOF\n---TITLE---\nx é😀\n---DESCRIPTION---\nd\n---TITLE---\ny\nEOF\n"
    new = await fix(client, text, "duplicate", r"Switch to UUID-prefixed delimiters .*")
    m = re.fullmatch(
        r"tool task é😀 <<EOF\n---\(UUID:([0-9a-f]{8})\)TITLE---\nx é😀\n---\(UUID:\1\)DESCRIPTION---\nd\n"
        r"---TITLE---\ny\nEOF\n",
        new,
    )
    assert m is not None, new


async def test_add_missing_parameter(client: RecordingClient) -> None:
    text = "tool task é😀 <<EOF\n---TITLE---\nA title é😀\nEOF\n"
    new = await fix(client, text, "missing", "Add parameter 'DESCRIPTION'")
    assert new == "tool task é😀 <<EOF\n---TITLE---\nA title é😀\n---DESCRIPTION---\nTODO: <description>\nEOF\n"
    # A placeholder value to type over: the fix leaves no new problem (an empty value would be an `empty` error).


async def test_replace_unknown_parameter(client: RecordingClient) -> None:
    text = "tool task é😀 <<EOF\n---TITEL---\nA title é😀\n---DESCRIPTION---\nd\nEOF\n"
    uri = client.open(text)
    diags = await client.diagnostics_of(uri)
    assert sorted(d.code for d in diags) == ["missing", "unknown"]
    unknown = next(d for d in diags if d.code == "unknown")
    assert unknown.range == expect_range(client, text.split("\n"), 1, 3, 8)
    actions = await client.actions(uri, unknown.range)
    replace = next(a for a in actions if a.title == "Replace 'TITEL' with 'TITLE'")
    new = await apply_action(client, uri, text, replace)
    assert new == text.replace("TITEL", "TITLE")
    assert await client.diagnostics_of(uri) == []


async def test_rename_invalid_marker(client: RecordingClient) -> None:
    text = "é😀 cat <<ÉOF\nbody EOF\nEOF_\nÉOF\n"
    new = await fix(client, text, "invalid_marker", "Rename the marker 'ÉOF' to 'EOF'")
    assert new == "é😀 cat <<EOF\nbody EOF\nEOF_\nEOF\n"


async def test_rename_picks_a_marker_absent_from_the_body(client: RecordingClient) -> None:
    text = "é😀 cat <<'ÉOF'\nEOF\nÉOF\n"
    new = await fix(client, text, "invalid_marker", "Rename the marker 'ÉOF' to 'EOF_1'")
    assert new == "é😀 cat <<'EOF_1'\nEOF\nEOF_1\n"


async def test_marker_glued_to_a_redirection_gets_a_blank(client: RecordingClient) -> None:
    # Renaming the word `EOF>é😀.txt` would drop the redirection: the fix separates it instead.
    text = "é😀 cat <<EOF>é😀.txt\nx\nEOF\n"
    new = await fix(client, text, "invalid_marker", r"Put a blank between the marker 'EOF' and '>é😀\.txt'")
    assert new == "é😀 cat <<EOF >é😀.txt\nx\nEOF\n"


async def test_early_close_gets_a_marker_in_no_body_line(client: RecordingClient) -> None:
    text = "é😀 cat > é😀.md <<'EOF'\nEOF_1 é😀\nEOF\nmore é😀\nEOF\n"
    new = await fix(client, text, "early_close", "Rename the marker 'EOF' to 'EOF_2' .*")
    assert new == "é😀 cat > é😀.md <<'EOF_2'\nEOF_1 é😀\nEOF\nmore é😀\nEOF_2\n"


async def test_space_before_operator(client: RecordingClient) -> None:
    new = await fix(client, "é😀 cat<<EOF\nx\nEOF\n", "possible_heredoc", "Add a space before '<<' .*")
    assert new == "é😀 cat <<EOF\nx\nEOF\n"


async def test_space_before_operator_followed_by_a_redirection(client: RecordingClient) -> None:
    text = "é😀 cat<<EOF | tee é😀.log\nx\nEOF\n"
    new = await fix(client, text, "possible_heredoc", "Add a space before '<<' .*")
    assert new == "é😀 cat <<EOF | tee é😀.log\nx\nEOF\n"


async def test_absolute_path_inside_the_workspace_becomes_relative(client: RecordingClient) -> None:
    target = client.root / "sub" / "é😀.txt"
    text = f'é😀\n[CREATE_FILE path="{target}"]\nx\n[/CREATE_FILE]\n'
    new = await fix(
        client,
        text,
        "path_outside_workspace",
        r"Use the path 'sub/é😀.txt' \(relative to the workspace root\)",
        suffix=".inbox",
        language_id="agent-inbox",
    )
    assert new == text.replace(str(target), "sub/é😀.txt")


async def test_climbing_path_is_brought_back(client: RecordingClient) -> None:
    text = '[CREATE_FILE path="é😀/../../x.txt"]\nx\n[/CREATE_FILE]\n'
    new = await fix(
        client,
        text,
        "path_outside_workspace",
        r"Use the path 'x.txt' \(inside the workspace\)",
        suffix=".inbox",
        language_id="agent-inbox",
    )
    assert new == text.replace("é😀/../../x.txt", "x.txt")


async def test_suppress_here_in_cli(client: RecordingClient) -> None:
    text = "echo é😀\né😀 <<EOF\nbody\n"
    new = await fix(client, text, "unclosed_heredoc", r"Disable unclosed_heredoc here .*")
    assert new == "echo é😀\n# heredoc-lsp: disable=unclosed_heredoc\né😀 <<EOF\nbody\n"


async def test_suppress_in_whole_file(client: RecordingClient) -> None:
    text = "echo é😀\né😀 <<EOF\nbody\n"
    new = await fix(client, text, "unclosed_heredoc", "Disable unclosed_heredoc in this file")
    assert new == "# heredoc-lsp: disable=unclosed_heredoc\n" + text


async def test_suppress_in_inbox_reply_is_a_prose_line(client: RecordingClient) -> None:
    text = 'é😀 prose\n[READ_FILE path="é😀-missing.txt"]\n'
    new = await fix(
        client, text, "file_not_found", r"Disable file_not_found here .*", suffix=".inbox", language_id="agent-inbox"
    )
    assert new == 'é😀 prose\n# heredoc-lsp: disable=file_not_found\n[READ_FILE path="é😀-missing.txt"]\n'


async def test_only_other_kinds_gives_nothing(client: RecordingClient) -> None:
    uri = client.open("é😀 <<EOF\n")
    diags = await client.diagnostics_of(uri)
    assert await client.actions(uri, diags[0].range, only=[types.CodeActionKind.Refactor], diagnostics=diags) == []
