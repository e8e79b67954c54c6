"""Loading a user's AI, which is foreign code: `package.module:function` (the installed packages
first, then the current folder) or `path/to/file.py:function`; every failure to load it an
`UnknownAIError` that says where it was looked for. `ttt_db.ais.isolation` runs what this loads in a
process of its own."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final

from ttt_db.errors import AILoadFailedError, AINotForGameError, AIUnusableError, StopRequested, UnknownAIError
from ttt_db.game.definition import TICTACTOE, Game

if TYPE_CHECKING:
    from ttt_db.ais.protocol import NamedAI


def _is_path(module: str) -> bool:
    return module.endswith(".py") or "/" in module or os.sep in module


def _import_module(spec: str, module_name: str) -> ModuleType:
    """The user's module by name (looked up among the installed packages, then in the current
    folder) or by the path of its file; UnknownAIError saying where it was looked for."""
    if _is_path(module_name):
        return _import_file(spec, Path(module_name))
    folder = os.getcwd()
    if folder not in sys.path and "" not in sys.path:
        sys.path.append(folder)  # last: a file in the folder cannot shadow an installed package
    try:
        module: ModuleType = _run_import(spec, module_name, lambda: importlib.import_module(module_name))
    except ModuleNotFoundError as error:
        if error.name and module_name != error.name and not module_name.startswith(f"{error.name}."):
            raise AILoadFailedError(spec, f"importing {module_name!r} raised ModuleNotFoundError: {error}") from None
        raise UnknownAIError(
            spec,
            f"cannot import module {module_name!r} ({error}): it was looked for among the installed packages "
            f"and in the current folder {folder}; give a file's path instead, as in bots/my_bot.py:play",
        ) from None
    return module


def _import_file(spec: str, path: Path) -> ModuleType:
    resolved = path.resolve()
    if not resolved.is_file():
        raise UnknownAIError(spec, f"no file {str(path)!r} (looked for {resolved})")
    name = f"ttt_db_user_ai_{abs(hash(str(resolved)))}"
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    module_spec = importlib.util.spec_from_file_location(name, resolved)
    if module_spec is None or module_spec.loader is None:
        raise UnknownAIError(spec, f"{str(path)!r} is not a Python file")
    module = importlib.util.module_from_spec(module_spec)
    if str(resolved.parent) not in sys.path:
        sys.path.append(str(resolved.parent))  # its own helpers beside it, after every installed package
    sys.modules[name] = module
    loader = module_spec.loader
    try:
        _run_import(spec, str(path), lambda: loader.exec_module(module))
    except ModuleNotFoundError as error:  # a module the file imports
        sys.modules.pop(name, None)
        raise AILoadFailedError(spec, f"importing {str(path)!r} raised ModuleNotFoundError: {error}") from None
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _run_import(spec: str, what: str, load: Callable[[], Any]) -> Any:
    """`load()`, the user's code: its failures as UnknownAIError (ModuleNotFoundError passes)."""
    try:
        return load()
    except (ModuleNotFoundError, StopRequested):
        raise
    except SystemExit as error:
        raise AILoadFailedError(spec, f"importing {what!r} called sys.exit({error.code!r})") from None
    except Exception as error:  # the user's module failed while importing
        raise AILoadFailedError(spec, f"importing {what!r} raised {type(error).__name__}: {error}") from None


def file_without_function(spec: str) -> UnknownAIError:
    """The refusal of a Python file named as an AI without its function (`bots/bot.py`): it says
    how a file's AI is written and, where the file is there, suggests its public functions (read
    from its source, not run)."""
    import ast

    shape = "a user AI in a file is written path/to/file.py:function, the function after a colon"
    try:
        tree = ast.parse(Path(spec).read_bytes())
    except OSError:
        return UnknownAIError(spec, f"there is no file {spec!r} to load; {shape}")
    except (SyntaxError, ValueError):
        return UnknownAIError(spec, shape)
    functions = [node.name for node in tree.body if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")]
    return UnknownAIError(spec, shape, tuple(f"{spec}:{name}" for name in functions[:3]))


def load_user_ai(spec: str, game: Game) -> NamedAI:
    """The user's AI of `spec` (`module:function` or `file.py:function`), imported in this process.
    A function with a parameter named `game` is called `function(board, game=game)`: it learns
    which game it plays (rows, columns, k), as two games of one size share their boards' length."""
    from ttt_db.ais.protocol import NamedAI

    module_name, _, attribute = spec.rpartition(":")
    if not module_name or not attribute:
        raise UnknownAIError(spec, "a user AI is written package.module:function or path/to/file.py:function")
    module = _import_module(spec, module_name)
    target: object = module
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise UnknownAIError(spec, f"module {module_name!r} has no attribute {attribute!r}")
        target = getattr(target, part)
    target = _adapted(spec, attribute, target, game)
    if not callable(target):
        raise AIUnusableError(
            spec,
            f"{attribute!r} in {module_name!r} is a {type(target).__name__}, not callable: an AI is called with "
            "the board, function(board) -> moves",
        )
    doc = getattr(target, "__doc__", None)
    doc_lines = doc.strip().splitlines() if isinstance(doc, str) else []
    return NamedAI(spec, _told_the_game(target, game), None, doc_lines[0] if doc_lines else "user AI")


FACTORY_SEEDS: Final = range(16)
"""The seeds a factory named directly (`make_bot(seed)`) is asked with: the check speaks for them."""
PETTINGZOO_PARAMETERS: Final = ({"observation", "obs"}, {"agent", "agent_id"})
SEED_PARAMETERS: Final = {"seed", "random_seed"}


def _adapted(spec: str, attribute: str, target: object, game: Game) -> object:
    """The shapes other libraries give a player made an AI: a PettingZoo `policy(observation,
    agent)`, a factory of a bot or a policy taking a seed (asked with FACTORY_SEEDS), an OpenSpiel
    bot, policy or RL agents; anything else as it is."""
    if not callable(target):
        return _from_openspiel(spec, target)
    names = _required_parameters(target)
    if len(names) == 2 and all(name in allowed for name, allowed in zip(names, PETTINGZOO_PARAMETERS, strict=True)):
        return _from_pettingzoo(spec, target, game, None)
    if len(names) == 1 and names[0] in SEED_PARAMETERS:
        made = _run_import(spec, f"{attribute}(0)", lambda: target(0))
        if _is_spiel_bot(made):
            from ttt_db.ais import openspiel

            return openspiel.from_bot(target, seeds=FACTORY_SEEDS)
        if (
            callable(made)
            and len(made_names := _required_parameters(made)) == 2
            and made_names[0] in PETTINGZOO_PARAMETERS[0]
        ):
            return _from_pettingzoo(spec, target, game, FACTORY_SEEDS)
        raise AIUnusableError(
            spec,
            f"{attribute!r} takes a seed and gave {type(made).__name__}, neither an OpenSpiel bot nor a PettingZoo "
            "policy: an AI is called with the board, function(board) -> moves",
        )
    if inspect.isclass(target) and not names:
        raise AIUnusableError(
            spec,
            f"{attribute!r} is a class: name an instance of it, or a function: an AI is called with the board, "
            "function(board) -> moves",
        )
    if [name for name in names[1:] if name != "game"]:
        raise AIUnusableError(
            spec,
            f"{attribute!r} takes ({', '.join(names)}): an AI is called with the board alone, function(board) -> "
            "moves (the side to move follows from the board; a parameter named game is given the game)",
        )
    return _from_openspiel(spec, target)


def _required_parameters(function: Callable[..., Any]) -> list[str]:
    """The names of `function`'s positional parameters without a default (none known: [])."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return []
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in parameters if p.kind in positional and p.default is inspect.Parameter.empty]


def _from_pettingzoo(spec: str, policy: Callable[..., Any], game: Game, seeds: range | None) -> object:
    from ttt_db.ais import pettingzoo

    if game != TICTACTOE:
        raise AINotForGameError(spec, game.name, "a PettingZoo tictactoe_v3 policy plays 3x3 tic-tac-toe only")
    return pettingzoo.from_policy(policy, seeds=seeds)


def _is_spiel_bot(target: object) -> bool:
    if "pyspiel" not in sys.modules:
        return False
    import pyspiel

    return isinstance(target, pyspiel.Bot)


SAMPLING_BOT_ATTRIBUTES: Final = ("_random_state", "_rng", "rng", "random_state")
"""What an OpenSpiel bot written in Python that samples keeps its generator in (MCTSBot: `_random_state`)."""


def _from_openspiel(spec: str, target: object) -> object:
    """An OpenSpiel bot, policy or RL agent (or a list of agents, one per player) made an AI (a bot
    that samples is refused: a factory checks it over seeds); anything else as it is. OpenSpiel is
    looked for only when the user's module imported it."""
    if "pyspiel" not in sys.modules:
        return target
    import pyspiel
    from open_spiel.python import policy, rl_agent

    from ttt_db.ais import openspiel

    agents = target if isinstance(target, list | tuple) else [target]
    if agents and all(isinstance(agent, rl_agent.AbstractAgent) for agent in agents):
        return openspiel.from_agent(target)
    if isinstance(target, policy.Policy):
        return openspiel.from_policy(target)
    if isinstance(target, pyspiel.Bot):
        sampler = next((name for name in SAMPLING_BOT_ATTRIBUTES if hasattr(target, name)), None)
        if sampler is not None:
            raise AIUnusableError(
                spec,
                f"it is a {type(target).__name__}, which samples its moves (its {sampler}): one object checked is "
                "one random stream. Name a factory instead, def make_bot(seed): return "
                f"{type(target).__name__}(...), checked over seeds {FACTORY_SEEDS.start} to {FACTORY_SEEDS.stop - 1}, "
                "or choose the seeds: ttt_db.ais.openspiel.from_bot(make_bot, seeds=range(64))",
            )
        return openspiel.from_bot(target)
    return target


def asks_for_the_game(function: Callable[..., Any]) -> bool:
    """Whether `function` takes a parameter named `game` (the AI's second signature)."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):  # a builtin or an object without a signature: the plain signature
        return False
    return "game" in parameters and parameters["game"].kind is not inspect.Parameter.POSITIONAL_ONLY


def _told_the_game(function: Callable[..., Any], game: Game) -> Callable[[str], Any]:
    if not asks_for_the_game(function):
        return function

    def play(board: str) -> Any:
        return function(board, game=game)

    return play
