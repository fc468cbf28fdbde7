"""Every ```python block in ``docs/*.md`` runs.

Rules (one pytest case per page, ids = page names):

- A page's ```python blocks run in order in ONE namespace, so a later block may use names
  defined by an earlier one. They run in a fresh temporary directory, so files the examples
  write never land in the repository.
- A block that needs an optional package starts with a marker comment line
  ``# needs: cupy`` (several: ``# needs: torch, torch_geometric``). When one of the named
  packages cannot be imported, that block is skipped and the rest of the page still runs;
  after such a skip, a later block that raises ``NameError`` or ``FileNotFoundError`` (it
  used a name or a file the skipped block would have made) is skipped too. Any skip makes
  the page's case skipped (naming the blocks) once nothing failed. No other error is
  forgiven: a block that imports a missing optional package without the marker fails,
  telling you to add it.
- Illustrations that are not meant to run (shell commands, pseudo-code, output listings) use
  another fence (```bash, ```text), never ```python.
- Results stated in a block should be checked with an ``assert`` where cheap.
"""

from __future__ import annotations

import importlib.util
import pathlib
import re
import textwrap

import pytest

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
PAGES = sorted(DOCS.glob("*.md"))

_FENCE = re.compile(r"^([ \t]*)```python[ \t]*\n(.*?)^\1```[ \t]*$", re.M | re.S)
_NEEDS = re.compile(r"^#\s*needs:\s*(.+?)\s*$")


def python_blocks(text: str) -> list[tuple[int, str]]:
    """The ```python blocks of a markdown page as (first line number, source), in order."""
    blocks = []
    for match in _FENCE.finditer(text):
        line = text.count("\n", 0, match.start(2)) + 1
        blocks.append((line, textwrap.dedent(match.group(2))))
    return blocks


def needed_packages(source: str) -> list[str]:
    """The packages named by a leading ``# needs:`` marker line (empty when there is none)."""
    first = source.lstrip("\n").split("\n", 1)[0]
    match = _NEEDS.match(first)
    if match is None:
        return []
    return [name.strip() for name in match.group(1).split(",") if name.strip()]


def _missing(packages: list[str]) -> list[str]:
    return [name for name in packages if importlib.util.find_spec(name) is None]


def test_the_pages_have_python_blocks():
    assert len(PAGES) >= 10
    assert sum(len(python_blocks(p.read_text(encoding="utf-8"))) for p in PAGES) > 50


def test_the_block_parser():
    text = "a\n```python\n# needs: torch, jax\nx = 1\n```\n```text\nno\n```\n"
    text += "- item\n\n  ```python\n  y = 2\n  ```\n"
    blocks = python_blocks(text)
    assert [line for line, _ in blocks] == [3, 12]
    assert blocks[1][1] == "y = 2\n"
    assert needed_packages(blocks[0][1]) == ["torch", "jax"]
    assert needed_packages(blocks[1][1]) == []


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_docs_page_runs(page, tmp_path, monkeypatch):
    blocks = python_blocks(page.read_text(encoding="utf-8"))
    if not blocks:
        pytest.skip(f"{page.name} has no python blocks")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    skipped: list[str] = []
    for number, (line, source) in enumerate(blocks, start=1):
        head = "\n".join(source.strip("\n").splitlines()[:3])
        where = f"{page.name} block {number} (line {line}):\n{textwrap.indent(head, '    ')}"
        missing = _missing(needed_packages(source))
        if missing:
            skipped.append(f"block {number} (line {line}) needs {', '.join(missing)}")
            continue
        code = compile(source, f"{page.name}:block{number}", "exec")
        try:
            exec(code, namespace)
        except (NameError, FileNotFoundError) as exc:
            if not skipped:
                pytest.fail(f"{where}\nraised {type(exc).__name__}: {exc}")
            skipped.append(f"block {number} (line {line}) after a skipped block: {exc}")
        except ImportError as exc:
            pytest.fail(f"{where}\nraised {exc!r}; mark an optional package with '# needs: NAME'")
        except Exception as exc:  # noqa: BLE001 - report which block failed
            pytest.fail(f"{where}\nraised {type(exc).__name__}: {exc}")
    if skipped:
        pytest.skip(f"{page.name}: " + "; ".join(skipped))
