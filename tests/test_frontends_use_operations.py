"""Front ends only map input to operations: the TUI (frontends/tui/), the editor protocol
(frontends/acp/), the command line with headless `run` (frontends/cli/) and the HTTP server
(frontends/server/) never start a turn, a compaction, a `!command`, a rewind or a fork on a
session themselves — they submit the operation
(core/ops.py) to a `SessionDriver`, whose handlers are the one place each is carried out — nor run a slash command's effect with themselves as its host: the driver runs it. An effect is
reached as a command's `.effect` or by name from the module that declares it
(core/command_effects.py, the registry says which), and a front end may do no more with one than
ask whether a command has it: calling it, handing it to a helper that calls it
(`rendered(command.effect)`) or keeping it in a name is running it. This reads their source and
fails on each, naming the file, line and operation.

Narrow on purpose: it knows the session methods an operation owns and the receivers a session
is reached by in these packages (`session`, `self.session`, `view.session`, `live.require()`).
"""

from __future__ import annotations

import ast
from pathlib import Path

from agent_tui.core import ops

PACKAGE = Path(__file__).resolve().parent.parent / "agent_tui"
FRONT_ENDS = ("frontends/tui", "frontends/acp", "frontends/cli", "frontends/server")

NO_SESSION_OPEN: dict[str, frozenset[str]] = {
    # `agent-tui sessions fork ID` copies a stored session with none open, so there is no driver
    # to submit to (the `fork` operation copies its driver's open session).
    "frontends/cli/sessions_cmd.py": frozenset({"fork_session"}),
}
"""Calls a file makes on the store alone, with no session open: each with the reason above it."""

OWNED: dict[str, type[ops.Operation]] = {
    "run_turn": ops.Send,
    "compact": ops.Compact,
    "run_user_command": ops.Shell,
    "rewind": ops.Rewind,
    "set_reasoning": ops.SetEffort,
    "set_mode": ops.SetMode,
}
"""AgentSession methods an operation carries out (by the driver, or the effect it runs)."""

OWNED_FUNCTIONS: dict[str, type[ops.Operation]] = {"turn_events": ops.Send, "fork_session": ops.Fork}
"""Functions that drive a session the way an operation does (a prompt with custom commands)."""


def _is_session(node: ast.expr) -> bool:
    text = ast.unparse(node)
    return text == "session" or text.endswith((".session", "require()"))


def direct_calls(source: str) -> list[tuple[int, str]]:
    """(line, what) for each call in `source` that bypasses an operation."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in OWNED and _is_session(func.value):
            found.append((node.lineno, f"{ast.unparse(func)}(…) is the `{OWNED[func.attr].type}` operation"))
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name in OWNED_FUNCTIONS:
            found.append((node.lineno, f"{name}(…) is the `{OWNED_FUNCTIONS[name].type}` operation"))
    return found + effects_reached(source)


def _effects() -> dict[str, set[str]]:
    """The registry's effects: function names by the module that declares them."""
    from agent_tui.core.commands import COMMANDS

    by_module: dict[str, set[str]] = {}
    for command in COMMANDS:
        if command.effect is not None:
            by_module.setdefault(command.effect.__module__, set()).add(command.effect.__name__)
    return by_module


def _asks_whether_there_is_one(node: ast.expr, parents: dict[ast.AST, ast.AST]) -> bool:
    """`command.effect is None` / `is not None`: reading whether a command has an effect."""
    parent = parents.get(node)
    return (
        isinstance(parent, ast.Compare)
        and all(isinstance(o, ast.Is | ast.IsNot) for o in parent.ops)
        and any(
            isinstance(side, ast.Constant) and side.value is None
            for side in [parent.left, *parent.comparators]
        )
    )


def effects_reached(source: str) -> list[tuple[int, str]]:
    """(line, what) for each place `source` takes hold of a command's effect: `x.effect` (beyond
    asking whether it is None), a module's effect by attribute (`fx.status`) or an effect
    imported by name. Called there or handed to a helper, the front end would run it."""
    effects = _effects()
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    modules: dict[str, set[str]] = {}  # a local name of an effects module → its effects
    names: dict[str, str] = {}  # a local name of an imported effect → module.effect
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in effects and alias.asname:
                    modules[alias.asname] = effects[alias.name]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                local = alias.asname or alias.name
                if f"{node.module}.{alias.name}" in effects:
                    modules[local] = effects[f"{node.module}.{alias.name}"]
                elif alias.name in effects.get(node.module, ()):
                    names[local] = f"{node.module}.{alias.name}"
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "effect" and isinstance(node.ctx, ast.Load):
            if _asks_whether_there_is_one(node, parents):
                continue
            parent = parents.get(node)
            if isinstance(parent, ast.Call) and parent.func is node:
                found.append(
                    (node.lineno, f"{ast.unparse(node)}(…) runs a command's effect on the front end")
                )
            else:
                found.append(
                    (
                        node.lineno,
                        f"{ast.unparse(node)} hands a command's effect on, to be run on the front end",
                    )
                )
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.attr in modules.get(node.value.id, ())
        ):
            found.append((node.lineno, f"{ast.unparse(node)} is a command's effect, run on the front end"))
        elif isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, ast.Load):
            found.append(
                (node.lineno, f"{node.id} ({names[node.id]}) is a command's effect, run on the front end")
            )
    return found


OWNED_STATE: dict[str, type[ops.Operation]] = {"pending_images": ops.Send}
"""Session state an operation sets (the pictures a send carries): a front end never writes it."""


def direct_writes(source: str) -> list[tuple[int, str]]:
    """(line, what) for each assignment in `source` to session state an operation owns."""
    found = []
    for node in ast.walk(ast.parse(source)):
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AugAssign | ast.AnnAssign)
            else []
        )
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr in OWNED_STATE:
                found.append(
                    (
                        node.lineno,
                        f"{ast.unparse(target)} = … is part of the `{OWNED_STATE[target.attr].type}` operation",
                    )
                )
    return found


def test_the_check_finds_a_staged_picture():
    before = """
self.session.record.pending_images = self.prompt.images.in_text(argument or "")
session.record.pending_images = list(images)
"""
    assert [line for line, _ in direct_writes(before)] == [2, 3]
    assert direct_writes("images = session.record.pending_images") == []


def test_the_check_finds_what_the_front_ends_used_to_do():
    """The calls the TUI and ACP made before they submitted operations are each found."""
    before = """
async def run_turn(self, text):
    async for event in turn_events(self.session, text):
        self.post_message(event)
    async for event in self.session.compact(instructions):
        pass
    async for event in self.session.run_user_command(command):
        pass
    report = await session.rewind(point, "both")
    await live.play(live.require().compact(argument or None, reason="forced"))
    self.session.set_mode(next_mode(self.session.mode))
    return (await command.effect(host, argument)).markdown()
"""
    assert sorted(line for line, _ in direct_calls(before)) == [3, 5, 7, 9, 10, 11, 12]
    assert "`compact` operation" in direct_calls(before)[1][1]


def test_the_check_finds_an_effect_handed_on():
    """An effect the front end passes to a helper, keeps in a name or reaches by its module is
    found as surely as one it calls; asking whether a command has one is not."""
    before = """
from agent_tui.core import command_effects as fx
from agent_tui.core.command_effects import status as status_effect

async def handler(view, argument):
    if view.services is None and command.effect is not None:
        await rendered(command.effect)(view, argument)
    run = command.effect
    await fx.context(live, argument)
    return await status_effect(view, "")
"""
    assert sorted(line for line, _ in direct_calls(before)) == [7, 8, 9, 10]
    assert "hands a command's effect" in dict(direct_calls(before))[7]
    fine = """
from agent_tui.core import command_effects as fx

assert command.effect is not None, "no effect"
if command.effect is None:
    pass
text = fx.extensions_text(services, [])
"""
    assert direct_calls(fine) == []


def test_the_check_leaves_other_calls_alone():
    """Reading a session, and a driver's or a screen's methods of the same names, are fine."""
    fine = """
budget = self.session.measure()
await driver.compact(text)
self.chat.compact()
sandbox.set_mode(mode)
live.set_mode(mode_id)
"""
    assert direct_calls(fine) == []


def test_the_front_ends_submit_operations_instead_of_calling_the_session():
    """No file of the TUI, the editor protocol, the command line (headless `run`) or the server
    calls a session method an operation owns or runs a command's effect."""
    offenders = []
    assert all((PACKAGE / front_end).is_dir() for front_end in FRONT_ENDS)  # a moved folder is no pass
    for front_end in FRONT_ENDS:
        for path in sorted((PACKAGE / front_end).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            allowed = NO_SESSION_OPEN.get(path.relative_to(PACKAGE).as_posix(), frozenset())
            for line, what in direct_calls(source) + direct_writes(source):
                if what.split("(", 1)[0] in allowed:
                    continue
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {what}")
    assert not offenders, "submit the operation to the tab's or session's driver instead:\n" + "\n".join(
        offenders
    )


def test_a_command_is_its_operation_wherever_it_is_typed():
    """What the TUI and an editor submit for a typed command (core/commands.py `as_operation`):
    its own operation, the driver's `command` for the rest `run` offers; no effect is left for a
    front end to run with itself as the host."""
    from agent_tui.core.commands import BY_NAME, COMMANDS, as_operation

    assert as_operation(BY_NAME["effort"], "high") == ops.SetEffort("high")
    assert as_operation(BY_NAME["undo"], "2 --force") == ops.Undo(2, force=True)
    assert as_operation(BY_NAME["rename"], "a title") == ops.Rename("a title")
    assert as_operation(BY_NAME["remember"], "tabs") == ops.Remember("tabs")
    assert as_operation(BY_NAME["cost"], "") == ops.RunCommand("/cost ")
    assert as_operation(BY_NAME["skill"], "db-migrations") == ops.ActivateSkill("db-migrations")
    assert as_operation(BY_NAME["memory"], "rules") == ops.RunCommand("/memory rules")
    run_by_the_front_end = {c.name for c in COMMANDS if c.effect is not None and as_operation(c, "") is None}
    assert run_by_the_front_end == set()  # every effect runs in the driver (the TUI's /memory is its own)
