"""docs/editors.md: the format comes from the language id (editor aliases too), else from the file name."""

from __future__ import annotations

import pytest

from heredoc_lsp.languages import Language, detect_language, language_from_path


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("deploy.cli", Language.CLI),
        ("a/b/reply.inbox", Language.INBOX),
        ("work/inbox/0001.txt", Language.INBOX),
        ("inbox.txt", None),
        ("x.outbox", Language.OUTBOX),
        ("work/outbox/a1b2c3d4_seq0001.txt", Language.OUTBOX),
        ("work/outbox/a1b2c3d4_seq001.txt", None),
        ("work/outbox/notes.txt", None),
        ("script.sh", None),
        ("cli", None),
    ],
)
def test_language_from_path(path: str, language: Language | None) -> None:
    assert language_from_path(path) == language


@pytest.mark.parametrize(
    ("language_id", "path", "language"),
    [
        ("cli-script", "x.txt", Language.CLI),
        ("cliscript", None, Language.CLI),  # Neovim filetypes have no hyphen
        ("agent-inbox", "x.cli", Language.INBOX),
        ("agentoutbox", None, Language.OUTBOX),
        ("plaintext", "notes/inbox/r.txt", Language.INBOX),
        ("", "a.cli", Language.CLI),
        (None, None, None),
        ("python", "a.py", None),
    ],
)
def test_detect_language(language_id: str | None, path: str | None, language: Language | None) -> None:
    assert detect_language(language_id, path) == language
