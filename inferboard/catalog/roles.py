"""Kind groups read from the roles the shipped catalog gives each kind (``roles:`` in
components/*.yaml), so that which kinds are pools, GPU pools or fault targets is written once.
Nothing here reads the catalog at import: a group asks ``default_catalog()`` on first use."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache

from inferboard.catalog.loader import default_catalog


@lru_cache(maxsize=None)
def kinds_with(*roles: str) -> tuple[str, ...]:
    """The kinds of the shipped catalog having any of ``roles``, in catalog order."""
    return default_catalog().kinds_with_role(*roles)


class KindGroup(Sequence):
    """The kinds of the shipped catalog having any of ``roles``, as a tuple-like sequence that reads
    the catalog the first time it is asked (so a module can hold one as a constant)."""

    __slots__ = ("roles", "_kinds")

    def __init__(self, *roles: str):
        self.roles = roles
        self._kinds: frozenset[str] | None = None

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds, in catalog order."""
        return kinds_with(*self.roles)

    def __contains__(self, kind: object) -> bool:
        if self._kinds is None:
            self._kinds = frozenset(self.kinds)
        return kind in self._kinds

    def __iter__(self) -> Iterator[str]:
        return iter(self.kinds)

    def __len__(self) -> int:
        return len(self.kinds)

    def __getitem__(self, index):
        return self.kinds[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (KindGroup, tuple, list)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.roles)

    def __repr__(self) -> str:
        return f"KindGroup{self.roles!r}"


def kind_group(*roles: str) -> KindGroup:
    """A module-level constant for the kinds having any of ``roles``, read on first use."""
    return KindGroup(*roles)
