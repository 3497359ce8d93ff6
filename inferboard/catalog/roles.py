"""Kind groups read from the roles the shipped catalog gives each kind (``roles:`` in
components/*.yaml), so that which kinds are pools, GPU pools or fault targets is written once."""

from __future__ import annotations

from functools import lru_cache

from inferboard.catalog.loader import default_catalog


@lru_cache(maxsize=None)
def kinds_with(*roles: str) -> tuple[str, ...]:
    """The kinds of the shipped catalog having any of ``roles``, in catalog order."""
    return default_catalog().kinds_with_role(*roles)
