"""ARCHITECTURE.md's table of the kinematics core says what each module is for and promises "a
module imports only those above it in this table (no import circle)". These tests hold the
table to the tree and the imports to the table, so that a new module is placed where its
imports allow, and an import that would point down is seen when it is written.

Imports inside `if TYPE_CHECKING:` are for type hints only and never run: they may point
anywhere (the arm modules name `PlanarArm` and `SpatialArm` in their hints that way).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from ros_helpers import PACKAGE_DIR

ARCHITECTURE = PACKAGE_DIR.parent / "ARCHITECTURE.md"
CORE = PACKAGE_DIR / "arm_kinematics" / "kinematics"
TABLE_ROW = re.compile(r"^\| `([\w/]+\.py)` \|", re.MULTILINE)


def table_modules() -> list[str]:
    """The modules of the kinematics core's table, in its order (paths under kinematics/)."""
    text = ARCHITECTURE.read_text()
    section = text[text.index("## Kinematics core") :]
    section = section[: section.index("\n## ", 1)]
    return TABLE_ROW.findall(section)


def core_modules() -> list[str]:
    return sorted(
        str(path.relative_to(CORE)) for path in CORE.rglob("*.py") if path.name != "__init__.py"
    )


def runtime_imports(module: str, known: set[str]) -> set[str]:
    """The core modules (of `known`) that `module` imports when it runs: its relative
    imports, `from . import name` included, not those under `if TYPE_CHECKING:`."""
    tree = ast.parse((CORE / module).read_text())
    hints_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for inner in ast.walk(node)
    }
    package = list(Path(module).parent.parts)
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.level == 0 or id(node) in hints_only:
            continue
        base = package[: len(package) - (node.level - 1)]
        target = base + (node.module.split(".") if node.module else [])
        names = ["/".join(target) + ".py"]
        names += ["/".join([*target, alias.name]) + ".py" for alias in node.names]
        found |= {name for name in names if name in known}
    return found


def test_the_table_names_every_module_of_the_core_once() -> None:
    listed = table_modules()
    assert len(listed) == len(set(listed)), "a module is listed twice in ARCHITECTURE.md"
    assert sorted(set(core_modules()) - set(listed)) == [], "modules missing from the table"
    assert sorted(set(listed) - set(core_modules())) == [], "the table names modules that are gone"


def test_every_module_imports_only_modules_above_it_in_the_table() -> None:
    listed = table_modules()
    place = {module: index for index, module in enumerate(listed)}
    downward = [
        f"{module} imports {imported}, listed below it"
        for module in listed
        for imported in sorted(runtime_imports(module, set(place)))
        if place[imported] > place[module]
    ]
    assert downward == []


def test_the_import_reader_sees_relative_imports_and_skips_type_hints() -> None:
    # The reader itself, on modules whose imports are known: spatial/arm.py imports the
    # planar branches (`from ..planar.branches import ...`) and `from . import explain`, and
    # names nothing of the envelope; planar/many.py's `PlanarArm` is a type hint only.
    known = set(core_modules())
    arm = runtime_imports("spatial/arm.py", known)
    assert {"planar/branches.py", "spatial/explain.py", "spatial/model.py"} <= arm
    assert not any(module.startswith("envelope/") for module in arm)
    assert "planar/arm.py" not in runtime_imports("planar/many.py", known)
