"""Menus the shell does not own. Practice, workshops and drills sit above the shell: each hands the
window a ``Feature`` (its action specs and their handlers) when the app is put together
(``desktop.app``), so the shell never imports them. A feature's actions are in the menus, the
command palette and the shortcut help like the window's own, and each handler becomes a method of
the window (``window.open_practice()``), called with the window first."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MethodType
from typing import Any, Callable, Iterable, Mapping

from desktop.shell.actions import ACTIONS, ActionSpec


@dataclass(frozen=True)
class Feature:
    """An optional part of the app (practice, drills, workshops): its commands and the functions that run them."""

    name: str
    actions: tuple[ActionSpec, ...]
    #: Handler name (as in ``ActionSpec.handler``) -> function taking the window first.
    handlers: Mapping[str, Callable[..., Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        missing = {spec.handler for spec in self.actions if spec.handler} - set(self.handlers)
        if missing:
            raise ValueError(f"feature {self.name!r}: actions name handlers it lacks: {sorted(missing)}")


def install(window, features: Iterable[Feature]) -> tuple[ActionSpec, ...]:
    """Bind each feature's handlers to ``window`` and return every action spec, the window's own
    first. A handler may not shadow a method the window already has."""
    specs = list(ACTIONS)
    for feature in features:
        for name, handler in feature.handlers.items():
            if hasattr(window, name):
                raise ValueError(f"feature {feature.name!r}: {name!r} is already a method of the window")
            setattr(window, name, MethodType(handler, window))
        specs.extend(feature.actions)
    return tuple(specs)


def every_spec(features: Iterable[Feature]) -> tuple[ActionSpec, ...]:
    """The window's actions and every feature's, for the clash checks and the shortcut help."""
    return ACTIONS + tuple(spec for feature in features for spec in feature.actions)
