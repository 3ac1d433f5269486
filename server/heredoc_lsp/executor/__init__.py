"""The sandboxed executor: runs ``.cli`` scripts and applies inbox replies, emitting run events (docs/formats.md;
docs/security.md; docs/jsonl.md).

No terminal, JSON or LSP knowledge lives here: front ends (``heredoc-lsp run/apply/agent``, the language server)
pass an event sink and a :class:`RunControl` and get a :class:`RunOutcome` back.

Running (asyncio; call from any running event loop; ``script_run.py``, ``reply_apply.py``)::

    outcome = await run_script(path, sink=on_event, control=control)          # a .cli script
    outcome = await run_script(path, text=buffer, lines=[4], ...)              # one command of an unsaved buffer
    outcome = await apply_reply(path, workspace=root, session=None, ...)       # an inbox reply (+ next outbox)

Both take ``config`` (default: the nearest ``heredoc-lsp.toml`` of the file), ``options`` (a :class:`RunOptions`;
default: from the config), ``workspace`` (where commands run and files change), ``sink`` (called with every
:class:`RunEvent`, synchronously, in the loop's thread), ``control`` and ``run_id`` (the client's id is kept).
They never raise for anything the run does; cancelling the awaiting task kills the processes, emits
``run.cancelled`` and re-raises :class:`asyncio.CancelledError`.

Events (docs/jsonl.md): ``run.started``; ``run.progress`` with ``kind`` = ``command`` (index, total, line, command,
step), ``stdout``/``stderr`` (index, text: clean, redacted, live), ``status`` (text; a step's result carries
``result``, the :meth:`StepResult.to_json` dict); ``run.question`` (question_id, kind, text, options, default);
``run.artifact`` (name, kind = created|edited|deleted|outbox|session, path); then exactly one of ``run.completed``
(summary, results, ...), ``run.failed`` (code = command_failed|parse_error|unsupported_version|protocol_error|
internal_error, message, ...) or ``run.cancelled`` (reason, results). :class:`RunEvent.envelope` gives the JSONL
form; in ``jsonl.py``, :class:`JsonlWriter` is a ready sink and :func:`parse_inbound` / :class:`StdinListener` read
the inbound side.

Control (thread-safe): ``control.cancel(reason)`` kills the running command's whole tree and ends the run
cancelled; ``control.answer(question_id, value)`` answers a ``run.question`` (``"yes"``/``True`` confirm);
``control.close_input(reason)`` says no answer will come; ``control.abort(code, message)`` ends it failed.

Lower layers, usable on their own: :func:`run_process` / :class:`ProcessSpec` (one process: argv, deadline, tree
kill, bounded capture), :func:`command_argv` / :func:`choose_sandbox` / :class:`ResourceLimits` (bubblewrap and
limits), :func:`build_environment` / :class:`Redactor` (secret values hidden in every sink) /
:class:`StreamRedactor` (output arriving in pieces from both streams), :class:`StreamSanitizer` /
:class:`StreamCapture` / :func:`truncate_parts`, :class:`Workspace` (two-phase path checks, atomic writes,
EDIT_FILE, READ_FILE), and the agent files in :mod:`heredoc_lsp.executor.agent` (sessions, outbox rendering, inbox
scanning).

Choices the rules leave open (docs/decisions.md):

- A reply whose commands fail still *completes* (``run.completed`` with ``failed``, exit 1): FAILED results are
  what the LLM gets back. A script run with a failing command *fails* (``command_failed``, exit 1), also with
  ``keep_going``.
- A question that times out, or whose input is closed, cancels the run (``run.cancelled`` with the reason); a
  "no" to the confirmation cancels it with reason ``not confirmed``.
- The command line exits 130 (SIGINT) or 143 (SIGTERM) when a signal cancelled the run; the run is cancelled
  cleanly first (its processes killed, ``run.cancelled`` emitted).
- When a command exits, whatever it left running in its process group is killed (as the pid namespace does under
  bubblewrap), so no background job outlives its command in any mode. Without bubblewrap, processes that left the
  group (``setsid``) are found through ``/proc``: as descendants, or by a per-command tag in their environment
  (``HEREDOC_LSP_RUN_TAG``); a process that also cleared its environment and was re-parented escapes — use
  bubblewrap.
- Script commands run in ``--workspace``, else the config file's folder, else the current directory. Replies
  default to the agent root of ``inbox/x.txt``, else the config's folder, else the reply's folder. When the
  workspace holds ``sessions/``, replies may not touch ``inbox/``, ``outbox/`` or ``sessions/``.
- No outbox is written after ``[DONE]``: the session is marked complete. READ_FILE contents are read when the next
  outbox is written (so they show the file after the reply's later edits).
- Output shown or put in an outbox: stdout, then ``[stderr]`` and stderr, together cut to ``max_output_chars``.
  Killing the process in the middle of an apply leaves each file old or new, plus possibly a hidden temporary
  ``.NAME.<hex>.heredoc-lsp.tmp`` next to it (never listed in outboxes).
"""
