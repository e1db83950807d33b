"""The README stays a newcomer's page, and the docs it sends a reader to exist.

README.md keeps what a newcomer needs; the rest lives in docs/, one file per topic. Every
relative link of README.md, ARCHITECTURE.md and docs/*.md must name a file of the repository
(the part before a `#`; the anchor itself is not checked).
"""

from __future__ import annotations

import re
from pathlib import Path

from ros_helpers import PACKAGE_DIR

REPO = PACKAGE_DIR.parent
README = REPO / "README.md"
README_MAX_LINES = 230

LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)")  # [text](target) and ![alt](target)
URL_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")  # https:, mailto:, ...


def missing_link_targets(markdown: Path, root: Path = REPO) -> list[str]:
    """The relative link targets of `markdown` that name no file or folder, each as
    "<file relative to root>: <target>"."""
    missing = []
    for target in LINK_TARGET.findall(markdown.read_text()):
        path = target.split("#", 1)[0]
        if URL_SCHEME.match(target) or not path:  # a web address, or an anchor in this file
            continue
        if not (markdown.parent / path).exists():
            missing.append(f"{markdown.relative_to(root)}: {target}")
    return missing


def test_the_readme_stays_short() -> None:
    lines = len(README.read_text().splitlines())
    assert lines <= README_MAX_LINES, (
        f"README.md has {lines} lines, more than {README_MAX_LINES}: move details to docs/"
    )


def test_every_relative_link_of_the_docs_names_a_file() -> None:
    documents = [README, REPO / "ARCHITECTURE.md", *sorted((REPO / "docs").glob("*.md"))]
    assert len(documents) > 2, "docs/*.md not found"
    missing = [target for document in documents for target in missing_link_targets(document)]
    assert missing == []


def test_a_link_to_a_missing_file_is_found(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("x\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md) [ok](there.md#a) [anchor](#here) [web](https://example.org/x.md)\n"
        "![gone](gone.png) and [gone](sub/gone.md#part)\n"
    )
    assert missing_link_targets(page, tmp_path) == [
        "page.md: gone.png",
        "page.md: sub/gone.md#part",
    ]
