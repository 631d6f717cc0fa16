"""Print what an executed chapter notebook showed: the rows of a table whose caption holds a phrase, and the
live / recorded labels (a GPU session's short table, from tools/run_chapters.py --out).

    python tools/summarize_notebook.py NOTEBOOK.ipynb "모양 모음 12가지"
"""
from __future__ import annotations

import json
import re
import sys

TAG = re.compile(r"<[^>]+>")


def cells_of(row_html: str) -> list[str]:
    return [TAG.sub("", c).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row_html, re.S)]


def summary(notebook: dict, caption: str) -> list[str]:
    lines = []
    for cell in notebook.get("cells", []):
        for out in cell.get("outputs", []):
            html = "".join(out.get("data", {}).get("text/html", ""))
            if caption in html:
                lines += [" | ".join(cells_of(row)) for row in re.findall(r"<tr>(.*?)</tr>", html, re.S)]
            text = TAG.sub("", html)
            if "방금 측정한 결과 (live)" in text or "기록된 결과 (recorded)" in text or "기록을 보여 줍니다" in text:
                lines.append("label: " + text.strip()[:220])
            if out.get("output_type") == "error":
                lines.append(f"error: {out.get('ename')}: {out.get('evalue', '')[:200]}")
    return lines


def main(argv: list[str]) -> int:
    with open(argv[0], encoding="utf-8") as fh:
        notebook = json.load(fh)
    for line in summary(notebook, argv[1] if len(argv) > 1 else ""):
        print("   " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
