"""Earlier keyword names of renamed arguments, still accepted with a ``DeprecationWarning``."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def renamed_keywords(why: str, **renames: str) -> Callable[[F], F]:
    """Decorate a function whose arguments were renamed: ``old=new`` pairs. A call with an
    old keyword warns (``DeprecationWarning``) and passes the value on under the new name;
    giving both names is a ``TypeError``. ``why`` ends the warning (e.g. "TF-GNN's name")."""

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def inner(*args: Any, **kwargs: Any) -> Any:
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(
                            f"{fn.__name__}() got both {old}= and {new}= ({old}= is the "
                            f"earlier name of {new}=)"
                        )
                    warnings.warn(
                        f"{fn.__name__}(): {old}= has been renamed to {new}= ({why})",
                        DeprecationWarning,
                        stacklevel=2,
                    )
                    kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        return inner  # type: ignore[return-value]

    return wrap
