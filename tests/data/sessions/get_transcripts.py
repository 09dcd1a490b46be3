"""Fetch the corpus's transcripts from their repositories into one folder, as
`cortex-tui eval --transcripts DIR` reads them (`ID.jsonl`), each at its recorded commit.

    python tests/data/sessions/get_transcripts.py DIR

Needs git and the network. No session of the corpus ships with the repository: none of
their licences lets it be redistributed (see README.md beside this file).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

CORPUS = Path(__file__).with_name("corpus.json")


def fetch(dest: Path) -> int:
    dest.mkdir(parents=True, exist_ok=True)
    sessions = json.loads(CORPUS.read_text())["sessions"]
    by_repo: dict[str, list[dict[str, str]]] = {}
    for session in sessions:
        by_repo.setdefault(session["repo"], []).append(session)
    failed = 0
    for repo, wanted in by_repo.items():
        with tempfile.TemporaryDirectory() as tmp:
            clone = Path(tmp) / "repo"
            done = subprocess.run(
                [
                    "git",
                    "clone",
                    "-q",
                    "--filter=blob:none",
                    "--no-checkout",
                    f"https://github.com/{repo}",
                    str(clone),
                ],
                check=False,
            )
            if done.returncode != 0:
                print(f"{repo}: clone failed", file=sys.stderr)
                failed += len(wanted)
                continue
            for session in wanted:
                shown = subprocess.run(
                    ["git", "-C", str(clone), "show", f"{session['commit']}:{session['path']}"],
                    capture_output=True,
                    check=False,
                )
                if shown.returncode != 0:
                    print(f"{session['id']}: {shown.stderr.decode().strip()}", file=sys.stderr)
                    failed += 1
                    continue
                (dest / f"{session['id']}.jsonl").write_bytes(shown.stdout)
                print(f"{session['id']}: {len(shown.stdout):,} bytes")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(fetch(Path(sys.argv[1])))
