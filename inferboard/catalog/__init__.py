"""The component catalog: kinds of components and the GPU table, loaded from ``components/``."""

from inferboard.catalog.loader import Catalog, CatalogError, default_catalog

__all__ = ["Catalog", "CatalogError", "default_catalog"]
