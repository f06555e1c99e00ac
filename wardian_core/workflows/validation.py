"""Every error of a workflow definition in one pass: its structure (the pydantic model) and
what needs the whole graph (ids, edges, cycles, roles, interpolations).

The graph checks read the raw data, not the model, so a definition with a structural error
still gets its graph errors: a user fixes a file once, not once per kind of mistake.
Each error is `{"node", "field", "problem", "message"}`; `problem` is a stable code
(docs/workflows.md lists them).
"""

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from wardian_core.workflows.model import NODE_KINDS, Workflow
from wardian_core.workflows.templates import Reference, scan

# The template each kind of node interpolates.
TEMPLATE_FIELDS = {"agent": "prompt", "shell": "command", "approval": "message"}
# Run modes that take over a role agent's configuration or session: a provider has neither.
INHERITING_RUN_MODES = ("inherit_fresh", "inherit_resume")
_KINDS = ", ".join(NODE_KINDS)
# Validation is linear in nodes and edges; these bound what one file costs the host (and
# what a run of it would: each node is a process).
MAX_NODES = 10_000
MAX_EDGES = 50_000


def problem(node: str | None, field_path: str | None, code: str, message: str) -> dict[str, Any]:
    return {"node": node, "field": field_path, "problem": code, "message": message}


def validate_workflow(raw: object) -> tuple[Workflow | None, list[dict[str, Any]]]:
    """The workflow when `raw` is a valid definition, else None and every error found."""
    oversized = _size_errors(raw)
    if oversized:
        return None, oversized  # checked no further: the limit bounds what a check costs
    try:
        workflow: Workflow | None = Workflow.model_validate(raw)
        errors = []
    except ValidationError as exc:
        workflow, errors = None, structure_errors(raw, exc)
    errors += graph_errors(raw)
    return (workflow, []) if not errors else (None, errors)


def _size_errors(raw: object) -> list[dict[str, Any]]:
    limits = {"nodes": MAX_NODES, "edges": MAX_EDGES}
    lists = {key: raw.get(key) for key in limits} if isinstance(raw, dict) else {}
    return [
        problem(None, key, "too_large", f"{key} holds {len(items)} entries; a workflow has at most {limits[key]}")
        for key, items in lists.items()
        if isinstance(items, list) and len(items) > limits[key]
    ]


# --- structure -----------------------------------------------------------------------------


def structure_errors(raw: object, exc: ValidationError) -> list[dict[str, Any]]:
    return [_structure_error(raw, item) for item in exc.errors(include_url=False)]


def _structure_error(raw: object, item: Any) -> dict[str, Any]:
    loc = list(item["loc"])
    node = _node_id_at(raw, loc)
    if len(loc) > 2 and loc[0] == "nodes" and loc[2] in NODE_KINDS:
        del loc[2]  # the discriminated union's tag, not a field of the file
    path = ".".join(str(part) for part in loc) or None
    where = f"node {node}" if node else (path or "the workflow")
    kind = item["type"]
    if kind == "union_tag_invalid":
        tag = item.get("ctx", {}).get("tag")
        return problem(node, f"{path}.kind", "unknown_kind", f"{where}: unknown kind {tag!r}; the kinds are {_KINDS}")
    if kind == "union_tag_not_found":
        return problem(node, f"{path}.kind", "missing_field", f"{where}: `kind` is required, one of {_KINDS}")
    if kind == "missing":
        return problem(node, path, "missing_field", f"{path} is required")
    if kind == "extra_forbidden":
        return problem(node, path, "unknown_field", f"{path} is not a field of the workflow format")
    message = str(item["msg"]).removeprefix("Value error, ")
    return problem(node, path, "invalid_value", f"{path or 'the workflow'}: {message}")


def _node_id_at(raw: object, loc: list[Any]) -> str | None:
    if len(loc) < 2 or loc[0] != "nodes" or not isinstance(loc[1], int) or not isinstance(raw, dict):
        return None
    nodes = raw.get("nodes")
    if not isinstance(nodes, list) or loc[1] >= len(nodes) or not isinstance(nodes[loc[1]], dict):
        return None
    node_id = nodes[loc[1]].get("id")
    return node_id if isinstance(node_id, str) else None


# --- graph ---------------------------------------------------------------------------------


@dataclass
class _Draft:
    """What the graph checks can read from raw data, however broken the rest of it is."""

    nodes: list[tuple[int, str, dict[str, Any]]] = field(default_factory=list)  # index, id, node
    edges: list[tuple[int, Any, Any]] = field(default_factory=list)  # index, from, to
    roles: dict[str, Any] = field(default_factory=dict)
    inputs: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, raw: object) -> "_Draft":
        if not isinstance(raw, dict):
            return cls()
        nodes, edges, roles, inputs = (raw.get(key) for key in ("nodes", "edges", "roles", "inputs"))
        return cls(
            nodes=[
                (index, node["id"], node)
                for index, node in enumerate(nodes if isinstance(nodes, list) else [])
                if isinstance(node, dict) and isinstance(node.get("id"), str)
            ],
            # The model takes the field names too (populate_by_name), so they are read here as well.
            edges=[
                (index, edge.get("from", edge.get("source")), edge.get("to", edge.get("target")))
                for index, edge in enumerate(edges if isinstance(edges, list) else [])
                if isinstance(edge, dict)
            ],
            roles=roles if isinstance(roles, dict) else {},
            inputs=set(inputs) if isinstance(inputs, dict) else set(),
        )

    def order(self) -> list[str]:
        """The node ids in definition order, each once (a duplicate is reported, not walked twice)."""
        return list(dict.fromkeys(node_id for _, node_id, _ in self.nodes))

    def ids(self) -> set[str]:
        return set(self.order())

    def links(self) -> list[tuple[str, str]]:
        """The edges that join two different nodes: the graph the other checks walk."""
        ids = self.ids()
        return [(a, b) for _, a, b in self.edges if a in ids and b in ids and a != b]


def graph_errors(raw: object) -> list[dict[str, Any]]:
    draft = _Draft.of(raw)
    order, links = draft.order(), draft.links()
    components = _strongly_connected(order, links)
    return [
        *_duplicate_ids(draft),
        *_edge_errors(draft),
        *_cycles(components, _adjacency(order, links)),
        *_role_errors(draft),
        *_interpolation_errors(draft, _Upstream(order, links, components)),
    ]


def _duplicate_ids(draft: _Draft) -> Iterator[dict[str, Any]]:
    first: dict[str, int] = {}
    for index, node_id, _ in draft.nodes:
        if node_id in first:
            message = f"node id {node_id!r} is used by nodes {first[node_id]} and {index}; ids must be unique"
            yield problem(node_id, f"nodes.{index}.id", "duplicate_id", message)
        first.setdefault(node_id, index)


def _edge_errors(draft: _Draft) -> Iterator[dict[str, Any]]:
    ids = draft.ids()
    for index, source, target in draft.edges:
        if not isinstance(source, str) or not isinstance(target, str):
            continue  # the structure check reports it
        if source == target:
            yield problem(source, f"edges.{index}", "self_edge", f"edge {index} goes from node {source} to itself")
            continue
        for end, name, other in (("from", source, target), ("to", target, source)):
            if name not in ids:
                message = f"edge {index} {end} {name!r}: no node has that id"
                yield problem(other if other in ids else None, f"edges.{index}.{end}", "dangling_edge", message)


def _cycles(components: list[list[str]], forward: dict[str, list[str]]) -> Iterator[dict[str, Any]]:
    for component in components:
        if len(component) > 1:
            path = " → ".join([*_cycle_through(component, forward), component[0]])
            message = f"nodes {', '.join(component)} form a cycle ({path}); a workflow is a graph without cycles"
            yield problem(component[0], "edges", "cycle", message)


def _strongly_connected(order: list[str], links: list[tuple[str, str]]) -> list[list[str]]:
    """Kosaraju's components, each in definition order, the components in an order where
    every edge between two of them points forward (what `_Upstream` relies on); iterative,
    so a long chain cannot exhaust the interpreter's recursion limit."""
    forward = _adjacency(order, links)
    backward = _adjacency(order, [(b, a) for a, b in links])
    finished: list[str] = []
    seen: set[str] = set()
    for start in order:
        if start in seen:
            continue
        seen.add(start)
        stack = [(start, iter(forward[start]))]
        while stack:
            node, successors = stack[-1]
            following = next((n for n in successors if n not in seen), None)
            if following is None:
                finished.append(node)
                stack.pop()
            else:
                seen.add(following)
                stack.append((following, iter(forward[following])))
    position = {node_id: index for index, node_id in enumerate(order)}
    assigned: set[str] = set()
    components = []
    for start in reversed(finished):
        if start in assigned:
            continue
        component, pending = [], [start]
        assigned.add(start)
        while pending:
            node = pending.pop()
            component.append(node)
            for previous in backward[node]:
                if previous not in assigned:
                    assigned.add(previous)
                    pending.append(previous)
        components.append(sorted(component, key=position.__getitem__))
    return components


def _adjacency(order: list[str], links: list[tuple[str, str]]) -> dict[str, list[str]]:
    adjacent: dict[str, list[str]] = {node_id: [] for node_id in order}
    for source, target in links:
        adjacent[source].append(target)
    return adjacent


def _cycle_through(component: list[str], forward: dict[str, list[str]]) -> list[str]:
    """One cycle from the component's first node back to it (shortest, by breadth-first search)."""
    inside = set(component)
    start = component[0]
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in forward[node]:
                if target not in inside:
                    continue
                if target == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return path[::-1]
                if target not in came_from:
                    came_from[target] = node
                    following.append(target)
        frontier = following
    return component  # unreachable for a strongly connected component


def _role_errors(draft: _Draft) -> Iterator[dict[str, Any]]:
    for index, node_id, node in draft.nodes:
        role = node.get("role")
        if node.get("kind") != "agent" or not isinstance(role, str) or not role:
            continue
        if role not in draft.roles:
            known = ", ".join(sorted(draft.roles)) or "none"
            message = f"node {node_id} plays role {role!r}, which `roles` does not map (roles: {known})"
            yield problem(node_id, f"nodes.{index}.role", "unknown_role", message)
            continue
        mapping, run_mode = draft.roles[role], node.get("run_mode")
        if run_mode in INHERITING_RUN_MODES and isinstance(mapping, dict) and mapping.get("provider") is not None:
            message = (
                f"node {node_id} runs {run_mode}, but role {role!r} maps to provider {mapping['provider']!r}: "
                "there is no agent to inherit from; map the role to an `agent` or a `class`, or run `ephemeral`"
            )
            yield problem(node_id, f"nodes.{index}.run_mode", "inherit_without_agent", message)
        yield from _remote_role_errors(index, node_id, node, role, mapping)


def _remote_role_errors(
    index: int, node_id: str, node: dict[str, Any], role: str, mapping: Any
) -> Iterator[dict[str, Any]]:
    """An agent on another machine (`name@remote`) is asked the prompt as it runs there: this
    host can neither take over its session or configuration nor make it a worktree."""
    agent = mapping.get("agent") if isinstance(mapping, dict) else None
    if not isinstance(agent, str) or "@" not in agent:
        return
    run_mode = node.get("run_mode")
    if run_mode in INHERITING_RUN_MODES or node.get("worktree") is True:
        what, field_name = (
            (f"runs {run_mode}", "run_mode") if run_mode in INHERITING_RUN_MODES else ("sets worktree", "worktree")
        )
        message = (
            f"node {node_id} {what}, but role {role!r} is agent {agent} on another machine: it is asked "
            "the prompt there as it runs; run the node `ephemeral` without `worktree`"
        )
        yield problem(node_id, f"nodes.{index}.{field_name}", "remote_role_mode", message)


def _interpolation_errors(draft: _Draft, upstream: "_Upstream") -> Iterator[dict[str, Any]]:
    by_id = {node_id: node for _, node_id, node in reversed(draft.nodes)}  # the first of duplicates
    for index, node_id, node in draft.nodes:
        name = TEMPLATE_FIELDS.get(str(node.get("kind")))
        template = node.get(name) if name else None
        if not isinstance(template, str):
            continue
        at = f"nodes.{index}.{name}"
        found, syntax = scan(template)
        for message in syntax:
            yield problem(node_id, at, "bad_interpolation", f"node {node_id} {name}: {message}")
        for reference in found:
            yield from _reference_errors(draft, node_id, at, reference, by_id, upstream)


def _reference_errors(
    draft: _Draft, node_id: str, at: str, reference: Reference, by_id: dict[str, Any], upstream: "_Upstream"
) -> Iterator[dict[str, Any]]:
    used = f"node {node_id} uses {{{{{reference.text.strip()}}}}}"
    if reference.input is not None:
        if reference.input not in draft.inputs:
            known = ", ".join(sorted(draft.inputs)) or "none"
            yield problem(
                node_id, at, "missing_input", f"{used}, but `inputs` declares no {reference.input!r} ({known})"
            )
        return
    source = str(reference.node)
    if source not in by_id:
        yield problem(node_id, at, "unknown_node", f"{used}, but no node has id {source!r}")
    elif not upstream.of(source, node_id):
        message = f"{used}, but {source} is not upstream of {node_id}: add an edge path from {source} to {node_id}"
        yield problem(node_id, at, "not_upstream", message)
    elif reference.key is not None and reference.key not in _declared_keys(by_id[source], reference.key):
        message = f"{used}, but the output_schema of {source} declares no key {reference.key!r}"
        yield problem(node_id, at, "unknown_output_key", message)


def _declared_keys(node: dict[str, Any], key: str) -> set[str]:
    """The keys a node's output_schema names; without a schema (or one naming no key) any key
    may come, so `key` itself is declared."""
    schema = node.get("output_schema")
    if not isinstance(schema, dict):
        return {key}
    properties, required = schema.get("properties"), schema.get("required")
    named = [*(properties if isinstance(properties, dict) else ()), *(required if isinstance(required, list) else ())]
    keys = {name for name in named if isinstance(name, str)}
    return keys or {key}


class _Upstream:
    """Which nodes are upstream of which, asked only for the nodes a template names.

    Each strongly connected component gets the set of nodes upstream of it as one integer's
    bits, built once in the components' order (every edge points forward in it), when the
    first question comes. Every node's own set of ancestors, built before, was quadratic:
    6.5 s and 2.1 GB for a chain of 8,000 nodes.
    """

    def __init__(self, order: list[str], links: list[tuple[str, str]], components: list[list[str]]) -> None:
        self._bit = {node_id: 1 << index for index, node_id in enumerate(order)}
        self._component = {node_id: number for number, members in enumerate(components) for node_id in members}
        self._links = links
        self._components = components
        self._above: list[int] | None = None

    def of(self, source: str, node_id: str) -> bool:
        """Whether `source` is upstream of `node_id` (in a cycle, each of its nodes is upstream of all)."""
        if self._above is None:
            self._above = self._build()
        return bool(self._above[self._component[node_id]] & self._bit[source])

    def _build(self) -> list[int]:
        parents: list[list[str]] = [[] for _ in self._components]
        for source, target in self._links:
            parents[self._component[target]].append(source)
        above = [0] * len(self._components)
        for number, members in enumerate(self._components):
            bits = 0
            for parent in parents[number]:
                bits |= self._bit[parent] | above[self._component[parent]]
            if len(members) > 1:
                for member in members:
                    bits |= self._bit[member]
            above[number] = bits
        return above
