"""The README stays a newcomer's page, and the docs it sends a reader to exist.

README.md keeps what a newcomer needs; the rest lives in docs/, one file per topic. Every
relative link of README.md, ARCHITECTURE.md and docs/*.md must name a file of the repository,
and an anchor (`file.md#part`, `#part`) a heading of that Markdown file, as GitHub names it.
"""

from __future__ import annotations

import re
from pathlib import Path

from ros_helpers import PACKAGE_DIR

REPO = PACKAGE_DIR.parent
README = REPO / "README.md"
README_MAX_LINES = 230
LAYOUT = REPO / "docs" / "repository_layout.md"
LAYOUT_DEPTH = 3  # folders this deep from the repository's root are named in LAYOUT
NOT_IN_LAYOUT = {"build", "install", "log", "tmp"}  # made by setup.sh and the tests

LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)")  # [text](target) and ![alt](target)
URL_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")  # https:, mailto:, ...
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def anchors_of(markdown: Path) -> set[str]:
    """The anchors GitHub gives the headings of `markdown` (code blocks skipped): lower case,
    every character but letters, digits, `_`, `-` and spaces dropped, spaces as `-`, and a
    repeated one with `-1`, `-2`, ..."""
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    in_code = False
    for line in markdown.read_text().splitlines():
        if FENCE.match(line):
            in_code = not in_code
            continue
        heading = None if in_code else HEADING.match(line)
        if heading is None:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading.group(1).lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def missing_link_targets(markdown: Path, root: Path = REPO) -> list[str]:
    """The relative link targets of `markdown` that name no file or folder, or an anchor that
    no heading of the Markdown file has, each as "<file relative to root>: <target>"."""
    missing = []
    for target in LINK_TARGET.findall(markdown.read_text()):
        if URL_SCHEME.match(target):  # a web address
            continue
        path, _, anchor = target.partition("#")
        linked = markdown.parent / path if path else markdown
        if not linked.exists():
            missing.append(f"{markdown.relative_to(root)}: {target}")
        elif anchor and linked.suffix == ".md" and anchor not in anchors_of(linked):
            missing.append(f"{markdown.relative_to(root)}: {target} (no such heading)")
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
    (tmp_path / "there.md").write_text("# A\n")
    page = tmp_path / "page.md"
    page.write_text(
        "# Here\n[ok](there.md) [ok](there.md#a) [anchor](#here) [web](https://example.org/x.md)\n"
        "![gone](gone.png) and [gone](sub/gone.md#part) [no](there.md#b) [no](#there)\n"
    )
    assert missing_link_targets(page, tmp_path) == [
        "page.md: gone.png",
        "page.md: sub/gone.md#part",
        "page.md: there.md#b (no such heading)",
        "page.md: #there (no such heading)",
    ]


def test_anchors_are_github_s_heading_names(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text("# The page (`a.yaml`, x)\n```\n# not one\n```\n## Two\n## Two\n")
    assert anchors_of(page) == {"the-page-ayaml-x", "two", "two-1"}


def repository_folders(root: Path = REPO, depth: int = LAYOUT_DEPTH) -> set[str]:
    """The repository's folders down to `depth` levels, as "a/b/" (hidden ones, caches and
    what set-up and the tests make left out)."""
    found: set[str] = set()

    def walk(folder: Path, level: int) -> None:
        for child in folder.iterdir():
            name = child.name
            if not child.is_dir() or name.startswith((".", "__")) or name.endswith(".egg-info"):
                continue
            if level == 1 and name in NOT_IN_LAYOUT:
                continue
            found.add(f"{child.relative_to(root).as_posix()}/")
            if level < depth:
                walk(child, level + 1)

    walk(root, 1)
    return found


def layout_folders(markdown: Path = LAYOUT) -> set[str]:
    """The folders the layout's table names: every `path/` in the first column of its rows."""
    named: set[str] = set()
    for line in markdown.read_text().splitlines():
        if line.startswith("| `"):
            named.update(re.findall(r"`([^`]+/)`", line.split(" | ")[0]))
    return named


def test_the_repository_layout_names_every_folder_and_only_those() -> None:
    folders, named = repository_folders(), layout_folders()
    assert sorted(folders - named) == [], "folders missing from docs/repository_layout.md"
    assert sorted(named - folders) == [], "docs/repository_layout.md names folders that are gone"
