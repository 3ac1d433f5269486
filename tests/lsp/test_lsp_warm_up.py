"""The warm-up after ``initialize`` (lsp/server.py ``warm_up``) leaves the first check of a typical script no
one-time cost: no lazy regular expression compiled, no module imported. Counts, not timing.

A fresh process (tests/lsp/warm_up_probe.py) so that nothing an earlier test ran in this one is warm already.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lsp_harness import TIMEOUT

PROBE = Path(__file__).with_name("warm_up_probe.py")

# The kinds of lines the first check of a script meets most, none of them copied from the warm-up's own script.
SCRIPT = """\
# deploy the nightly jobs
wait-for service-1 --timeout 53
set-option alpha.restore 243
retries=3
job-run nightly-7 --retries "$retries"
route-add 10.9.1.0/24 via 10.9.1.1
block-run --id 1 <<BLOCK_1
  echo queue bravo
  deploy xray victor
BLOCK_1

send --to ops@example.net --subject "report 13: uniform"
config-load --format json <<JSON
  "key0": "timeout cluster quebec",
  "key1": "node",
JSON
config-load --format json <<JSON
{"key0": [1, 2]}
JSON
sql-exec --db main2 <<SQL
  SELECT name FROM jobs WHERE id = 2;
SQL
script-run --dry-run <<END
  timeout mike juliet
END
cat <<EOF > notes.txt
  a note
EOF
python3 - <<'PY'
for i in range(3):
    print(i)
PY
sh <<SH
echo "$HOME" | tr a-z A-Z
SH
"""


def test_first_check_after_warm_up_compiles_and_imports_nothing(tmp_path: Path) -> None:
    document = tmp_path / "jobs.cli"
    document.write_text(SCRIPT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(PROBE), str(tmp_path), str(document)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=PROBE.parent,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["warmed"]
    assert seen["checked"] == 4  # the document was checked: two JSON bodies, the Python one and the shell one
    assert seen["compiled"] == []
    assert seen["imported"] == []
