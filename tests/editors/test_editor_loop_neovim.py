"""A real Neovim 0.12 (the plugin and its setup line only) drives the agent loop through the :Heredoc* user
commands of lua/heredoc_lsp/init.lua (docs/neovim/README.md): a session started and its outbox shown, the outbox
copied to the register and pasted back (refused), the reply pasted, previewed as text, applied from the command
(confirmed through vim.ui.select), the next outbox shown, and the reply undone."""

from __future__ import annotations

from pathlib import Path

from editors_harness import NVIM_012, REPO, run_nvim, snippet, workspace_file

# The plugin on 'runtimepath' with its one setup line (docs/neovim/README.md) and the run keys of docs/running.md.
CONFIG = (
    f"vim.opt.rtp:prepend([==[{REPO}]==])\n"
    + snippet("nvim-loop", doc="neovim/README.md", marker="running-test")
    + "\n"
    + snippet("nvim-0.12", doc="running.md", marker="running-test")
)

REPLY = '[CREATE_FILE path="made.txt"]\nmade in neovim\n[/CREATE_FILE]\n[RUN_COMMAND]\ncat made.txt\n[/RUN_COMMAND]\n'


def test_neovim_runs_the_agent_loop_from_user_commands(tmp_path: Path) -> None:
    start = workspace_file(tmp_path, "start.cli", "echo hi\n")
    workspace = start.parent
    made = workspace / "made.txt"
    seen = run_nvim(
        NVIM_012,
        CONFIG,
        workspace,
        tmp_path / "home",
        "loop",
        file=str(start),
        task="Make made.txt",
        reply=REPLY,
        created=str(made),
        answer="Run",
    )
    assert seen.get("error") is None, seen
    outbox = Path(seen["outbox"])
    assert outbox.parent == workspace / "outbox"
    session = outbox.name.split("_", 1)[0]
    # Copied whole into the register (no clipboard provider headless: the unnamed register).
    assert seen["register"] == '"'
    assert seen["copied"] == outbox.read_text(encoding="utf-8")
    assert any(
        m == f'Copied {outbox.name} for the LLM ({len(seen["copied"])} characters, register ")'
        for m in seen["messages"]
    )
    # The outbox pasted back is refused and nothing is saved; the reply is saved as the next inbox file.
    assert any("the pasted text is not a reply" in m for m in seen["messages"]), seen["messages"]
    reply = workspace / "inbox" / f"{session}_seq0001_reply.txt"
    assert seen["reply"] == str(reply)
    assert sorted(p.name for p in (workspace / "inbox").iterdir() if p.is_file()) == [reply.name]
    assert seen["reply_filetype"] == "agentinbox"
    # The preview: text in a scratch buffer (Neovim gets no workspace edit to confirm: see docs/neovim/README.md).
    assert seen["preview_name"] == f"heredoc-preview://{reply.name}"
    assert "--- a/made.txt" in seen["preview"] and "+made in neovim" in seen["preview"], seen["preview"]
    assert "    $ cat made.txt" in seen["preview"]
    # Applied after the confirmation; the next outbox opened; undone.
    assert seen["questions"][0]["prompt"].startswith(f"Apply the reply {reply.name} ")
    assert seen["created"] is True
    assert seen["next_outbox"] == str(workspace / "outbox" / f"{session}_seq0002.txt")
    assert seen["removed"] is True and not made.exists()
    assert any(f"Undid {reply.name} " in m and "removed made.txt" in m for m in seen["messages"]), seen["messages"]
