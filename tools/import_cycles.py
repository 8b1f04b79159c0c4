"""An import-linter contract (``type = no_module_cycles`` in ``.importlinter``): no import cycle
between any two modules of the root packages, a package's ``__init__`` included: importing
``a.b.c`` depends on ``a`` and ``a.b`` too, whose ``__init__`` runs first.

import-linter's own ``acyclic_siblings`` compares the children of each package with one another;
an ``__init__`` that imports one of its children which imports the package back is not a
sibling pair, so this contract walks the whole module graph instead. The graph is grimp's: every
import statement counts, those under ``if TYPE_CHECKING:`` and those inside functions too.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping

import grimp
from importlinter.application import output
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck


def with_packages(targets: Iterable[str]) -> set[str]:
    """``targets`` and every package above each of them: importing ``a.b.c`` runs ``a`` and
    ``a.b`` (their ``__init__``) first, so a package that imports its own children is in a cycle
    with every child that imports a sibling."""
    found: set[str] = set()
    for target in targets:
        parts = target.split(".")
        found.update(".".join(parts[:n]) for n in range(1, len(parts) + 1))
    return found


def module_cycles(imports: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """One cycle for each strongly connected group of modules (Tarjan), as the modules on a
    shortest path from the group's first module back to itself; an empty list when acyclic."""
    graph = {module: sorted(set(targets) - {module}) for module, targets in imports.items()}
    return [_shortest_cycle(graph, group) for group in _strongly_connected(graph)]


def _strongly_connected(graph: Mapping[str, list[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        # iterative Tarjan: (module, position in its list of targets)
        work = [(root, 0)]
        while work:
            module, position = work.pop()
            if position == 0:
                index[module] = low[module] = len(index)
                stack.append(module)
                on_stack.add(module)
            targets = graph.get(module, [])
            if position < len(targets):
                work.append((module, position + 1))
                target = targets[position]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[module] = min(low[module], index[target])
                continue
            if low[module] == index[module]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == module:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
    return sorted(groups)


def _shortest_cycle(graph: Mapping[str, list[str]], group: list[str]) -> list[str]:
    members = set(group)
    start = group[0]
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        module = queue.popleft()
        for target in graph.get(module, []):
            if target not in members:
                continue
            if target == start:
                path = [module]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return list(reversed(path))
            if target not in came_from:
                came_from[target] = module
                queue.append(target)
    raise AssertionError(f"no cycle through {start}")  # pragma: no cover - a group is cyclic


class NoModuleCyclesContract(Contract):
    """Kept when no module of ``containers`` reaches itself again through its imports."""

    type_name = "no_module_cycles"
    containers = fields.ListField(subfield=fields.StringField())

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        roots: list[str] = self.containers  # type: ignore[assignment]
        modules = {m for m in graph.modules if any(m == r or m.startswith(f"{r}.") for r in roots)}
        imports = {m: with_packages(graph.find_modules_directly_imported_by(m)) & modules for m in modules}
        cycles = module_cycles(imports)
        return ContractCheck(kept=not cycles, metadata={"cycles": cycles})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for cycle in check.metadata["cycles"]:
            output.print_error(" -> ".join([*cycle, cycle[0]]))
            output.new_line()
