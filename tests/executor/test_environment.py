"""Secret-looking names and the one redactor every sink uses (pure code: no processes)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heredoc_lsp.executor.environment import (
    REDACTED,
    Redactor,
    StreamRedactor,
    build_environment,
    looks_secret,
    secret_values,
)

SECRET = "tok-0123456789abcdef"


@pytest.mark.parametrize(
    ("name", "value", "secret"),
    [
        ("GITHUB_TOKEN", "x", True),
        ("db_password", "x", True),
        ("SMTP_PASS", "x", True),
        ("PASSPHRASE", "x", True),
        ("AWS_SECRET_ACCESS_KEY", "x", True),
        ("MY_API_KEY", "x", True),
        ("GCP_CREDENTIALS", "x", True),
        ("DATABASE_URL", "postgres://app:hunter22@db/app", True),
        ("DATABASE_URL", "postgres://db/app", False),
        ("HOMEPAGE_URL", "https://example.com/a:b@c", False),
        ("KEYBOARD", "x", False),
        ("PATH", "/bin", False),
    ],
)
def test_looks_secret(name: str, value: str, secret: bool) -> None:
    assert looks_secret(name, value) is secret


def test_a_url_password_is_a_secret_value_of_its_own_and_not_passed_unless_named() -> None:
    parent = {"DATABASE_URL": "postgres://app:hunter22@db/app", "LC_URL": "https://u:pw12345@h", "PATH": "/bin"}
    assert set(secret_values(parent)) == {
        "postgres://app:hunter22@db/app",
        "hunter22",
        "https://u:pw12345@h",
        "pw12345",
    }
    assert "LC_URL" not in build_environment(parent)
    assert "LC_URL" in build_environment(parent, ["LC_URL"])


def _stream(redactor: Redactor, pieces: list[tuple[str, str]]) -> list[tuple[str, str]]:
    live = StreamRedactor(redactor)
    out: list[tuple[str, str]] = []
    for label, text in [*pieces, ("", "")]:
        out += live.feed(label, text) if label else live.finish()
    merged: list[tuple[str, str]] = []
    for label, text in out:  # pieces released by different calls, merged per stream run
        if merged and merged[-1][0] == label:
            merged[-1] = (label, merged[-1][1] + text)
        else:
            merged.append((label, text))
    return merged


def _joined(pieces: list[tuple[str, str]]) -> str:
    return "".join(t for _, t in pieces)


def test_a_secret_split_across_chunks_is_redacted_and_at_most_longest_minus_one_is_held() -> None:
    r = Redactor([SECRET])
    live = StreamRedactor(r)
    fed = "x" * 10 + SECRET[:7]
    out = live.feed("stdout", fed)
    assert _joined(out) == "x" * 10  # the possible beginning of a secret waits
    assert len(fed) - len(_joined(out)) <= len(SECRET) - 1
    out += live.feed("stdout", SECRET[7:] + "y")
    out += live.finish()
    assert _joined(out) == "x" * 10 + REDACTED + "y"
    assert {label for label, _ in out} == {"stdout"}


def test_a_secret_split_between_stdout_and_stderr_is_redacted_in_the_stream_where_it_starts() -> None:
    r = Redactor([SECRET])
    out = _stream(r, [("stdout", "a " + SECRET[:9]), ("stderr", SECRET[9:] + " b")])
    assert out == [("stdout", "a " + REDACTED), ("stderr", " b")]


def test_a_held_back_beginning_that_never_completes_is_released_at_the_end() -> None:
    r = Redactor([SECRET])
    assert _stream(r, [("stdout", "see tok-01"), ("stdout", "!")]) == [("stdout", "see tok-01!")]
    assert _stream(r, [("stdout", "see tok-01")]) == [("stdout", "see tok-01")]


def test_a_cut_hides_a_held_back_beginning_of_a_secret() -> None:
    r = Redactor([SECRET])
    live = StreamRedactor(r)
    assert live.feed("stdout", "aaa" + SECRET[:12]) == [("stdout", "aaa")]
    assert live.cut() == [("stdout", REDACTED)]
    assert live.feed("stdout", "tail") == [("stdout", "tail")]
    short = StreamRedactor(r)
    assert short.feed("stdout", "aaatok") == [("stdout", "aaa")]
    assert short.cut() == [("stdout", "tok")]  # three characters are not worth a marker


def test_mask_end_mask_start_and_joined_parts() -> None:
    r = Redactor([SECRET])
    assert r.mask_end("x" + SECRET[:8]) == "x" + REDACTED
    assert r.mask_start(SECRET[8:] + "y") == REDACTED + "y"
    assert r.mask_end("x" + SECRET + "tok") == "x" + REDACTED + "tok"
    assert r.redact_joined("out " + SECRET[:5], SECRET[5:] + " err") == ("out " + REDACTED, " err")
    assert r.redact_joined("out", "err") == ("out", "err")
    assert Redactor().redact_joined("a", "b") == ("a", "b")


@given(
    st.lists(st.sampled_from(["stdout", "stderr"]), min_size=1, max_size=6),
    st.integers(0, 2**32),
)
def test_any_chunking_and_stream_interleaving_of_a_printed_secret_hides_it(labels: list[str], seed: int) -> None:
    rng = random.Random(seed)
    text = "pre " + SECRET + " mid " + SECRET[:5] + " " + SECRET + " end"
    cuts = sorted(rng.sample(range(1, len(text)), min(len(labels) - 1, len(text) - 1)))
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    out = _stream(Redactor([SECRET, "other-secret"]), list(zip(labels, pieces, strict=True)))
    joined = _joined(out)
    assert joined == "pre " + REDACTED + " mid " + SECRET[:5] + " " + REDACTED + " end"
