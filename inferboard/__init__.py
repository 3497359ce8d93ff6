"""Inferboard's Qt-free core: catalog, design model, design files, simulator and rules."""

__version__ = "0.1.0"
