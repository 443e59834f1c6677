"""The SGLang model classes that build the expert-location metadata (``explain.sgrocm.METADATA_CLASSES``), read from
the wheels (helper cap32, 2026-12-07).

For each wheel: every ``EntryClass`` name of ``sglang/srt/models/*.py`` whose class defines
``get_model_config_for_expert_location`` or inherits it (base classes followed by name across the files, Python's
``ast``; nothing is imported or run).  ``ModelConfigForExpertLocation.from_model_config`` returns None for the other
classes from 0.4.10 on, so only these build the metadata on the GPU between SGLang's pre sample and 'Load weight
begin'.  Prints each wheel's list and the union.

    python scripts/expert_location_classes.py /tmp/wheels/sglang-0.5.3-py3-none-any.whl …
"""

from __future__ import annotations

import ast
import sys
import zipfile

METHOD = "get_model_config_for_expert_location"


def _classes(z: zipfile.ZipFile) -> tuple[dict[str, tuple[list[str], bool]], set[str]]:
    classes: dict[str, tuple[list[str], bool]] = {}
    entries: set[str] = set()
    for name in z.namelist():
        if not (name.startswith("sglang/srt/models/") and name.endswith(".py")):
            continue
        try:
            tree = ast.parse(z.read(name))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = [b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases]
                defines = any(isinstance(x, ast.FunctionDef) and x.name == METHOD for x in node.body)
                old = classes.get(node.name)
                classes[node.name] = (bases, defines or bool(old and old[1]))
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "EntryClass"
                                                    for t in node.targets):
                value = node.value
                for e in (value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]):
                    if isinstance(e, ast.Name):
                        entries.add(e.id)
    return classes, entries


def metadata_classes(wheel: str) -> list[str]:
    """The ``EntryClass`` names of ``wheel`` whose class has ``METHOD`` (its own or a base's)."""
    classes, entries = _classes(zipfile.ZipFile(wheel))

    def has(name: str, seen: tuple = ()) -> bool:
        if name not in classes or name in seen:
            return False
        bases, defines = classes[name]
        return defines or any(has(b, seen + (name,)) for b in bases)

    return sorted(e for e in entries if has(e))


def main(argv: list[str]) -> int:
    if not argv:
        print("expert_location_classes.py: no wheel given; pass one or more SGLang wheels, e.g. "
              "python scripts/expert_location_classes.py /tmp/wheels/sglang-0.5.9-py3-none-any.whl", file=sys.stderr)
        return 2
    union: set[str] = set()
    for wheel in argv:
        try:
            found = metadata_classes(wheel)
        except (OSError, zipfile.BadZipFile) as exc:
            print(f"expert_location_classes.py: cannot read {wheel!r} as a wheel ({exc}); pass an SGLang wheel "
                  "(pip download --no-deps sglang==0.5.9 -d /tmp/wheels)", file=sys.stderr)
            return 2
        union |= set(found)
        print(f"{wheel}: {len(found)}")
    print(f"union ({len(union)}): {sorted(union)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
