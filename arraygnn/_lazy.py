"""Public names imported on first use (PEP 562), for packages with many heavy members.

``attach(__name__, exports)`` returns the module-level ``__getattr__`` and ``__dir__`` of a
package whose public names load when first read: ``exports`` maps each name to the module
that defines it (``"arraygnn.nn.gat_conv"``) or to ``"module:attribute"`` for an alias. A
name that is not listed but is a submodule (``arraygnn.nn.aggr``) is imported as one.

RULE: a public name may equal one of the package's submodules (``arraygnn.graph`` the
constructor, ``arraygnn.nn.summary`` the function): Python binds a submodule to its
parent's attribute when the submodule is first imported, which would replace the public
name by the module. ``attach`` turns the package into a ``LazyPackage`` that ignores that
binding for the names in ``exports``, so the public name wins whichever is imported first.
The package lists the same imports under ``if TYPE_CHECKING:`` for editors and type
checkers; tests/test_api_surface.py checks that both lists agree.

RULE: first uses from several threads are serialised by one re-entrant lock: the modules
behind different names import each other, and two threads importing such modules at once
can see each other's half-initialised modules (``ImportError: cannot import name ... from
partially initialized module``), which an eager package avoids by importing everything in
one thread. A thread waits at most ``_LOCK_TIMEOUT`` seconds for the lock, then imports
without it: a thread that started a plain ``import`` of one of these modules and reaches a
lazy name while another thread holds the lock cannot deadlock. A forked child starts with
a fresh lock (``os.register_at_fork``).

>>> import arraygnn
>>> "Data" in dir(arraygnn), callable(arraygnn.graph)
(True, True)
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
import types
from collections.abc import Callable
from typing import Any

__all__ = ["LazyPackage", "attach"]

_LOCK = threading.RLock()  # first uses, one thread at a time (see RULE above)
_LOCK_TIMEOUT = 5.0


def _fresh_lock() -> None:
    """A forked child gets a free lock: one held by another thread of the parent at the
    fork would make the child's first uses wait ``_LOCK_TIMEOUT`` seconds."""
    global _LOCK
    _LOCK = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_fresh_lock)


class LazyPackage(types.ModuleType):
    """A package module whose public names keep their values when a submodule of the same
    name is imported (see the module docstring)."""

    def __setattr__(self, name: str, value: Any) -> None:
        exports = self.__dict__.get("_LAZY_EXPORTS", {})
        if (
            name in exports
            and isinstance(value, types.ModuleType)
            and value.__name__ == f"{self.__name__}.{name}"
        ):
            return  # the import system binding the submodule: keep the public name
        super().__setattr__(name, value)


def attach(
    package: str, exports: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package`` (its ``__name__``), loading each name of
    ``exports`` (name -> ``"module"`` or ``"module:attribute"``) on first use."""
    module = sys.modules[package]
    namespace = module.__dict__
    namespace["_LAZY_EXPORTS"] = exports
    module.__class__ = LazyPackage

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):  # dunder probes (copy, pickle, inspect) import nothing
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        lock = _LOCK  # the one acquired is the one released (a fork may swap _LOCK)
        locked = lock.acquire(timeout=_LOCK_TIMEOUT)
        try:
            return load(name)
        finally:
            if locked:
                lock.release()

    def load(name: str) -> Any:
        if name in namespace:  # loaded by another thread while this one waited
            return namespace[name]
        target = exports.get(name)
        if target is not None:
            source, _, attribute = target.partition(":")
            value = getattr(importlib.import_module(source), attribute or name)
        else:
            try:
                value = importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as err:
                if err.name != f"{package}.{name}":
                    raise
                raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports) | set(namespace.get("__all__", ())))

    return __getattr__, __dir__
