from __future__ import annotations

import pytest
from run_harness import RunClient

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_smoke(client: RunClient) -> None:
    uri = client.open("# hi\necho hello > out.txt\ncat <<EOF\nbody\nEOF\n")
    print(await client.lens_titles(uri))
    lens = await client.lens(uri, 1, "▶ Run")
    client.answers.append("Run")
    result = await client.execute(lens.command)
    print(result)
    print(await client.lens_titles(uri))
    print(await client.hover_text(uri, 1))
    print(client.progress_reports)
    print([(a.title, a.kind) for a in await client.actions(uri, 3)])
    assert (client.root / "out.txt").read_text() == "hello\n"
