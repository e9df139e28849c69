"""A stand-in for the `gh` CLI over a JSON file of PR comments (``$FAKE_GH_COMMENTS``), for
running the generated PR comment step here: `gh api .../comments --jq` (only the
``startswith("...")`` filter the step uses), `gh api --method PATCH .../comments/ID -F
body=@FILE` and `gh pr comment PR --body-file FILE`."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    store = Path(os.environ["FAKE_GH_COMMENTS"])
    comments = json.loads(store.read_text()) if store.exists() else []
    if argv[:2] == ["pr", "comment"]:
        body = Path(argv[argv.index("--body-file") + 1]).read_text()
        comments.append({"id": 1000 + len(comments), "body": body,
                         "user": {"login": "github-actions[bot]"}})
    elif argv[0] == "api" and "PATCH" in argv:
        path = next(a for a in argv if a.startswith("repos/"))
        body = Path(argv[argv.index("-F") + 1].removeprefix("body=@")).read_text()
        wanted = int(path.rpartition("/")[2])
        for comment in comments:
            if comment["id"] == wanted:
                comment["body"] = body
    elif argv[0] == "api":
        prefix = re.search(r'startswith\("([^"]*)"\)', argv[argv.index("--jq") + 1]).group(1)
        for comment in comments:
            if comment["body"].startswith(prefix):
                print(comment["id"])
        return 0
    else:
        print(f"fake gh: unexpected arguments {argv}", file=sys.stderr)
        return 2
    store.write_text(json.dumps(comments))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
