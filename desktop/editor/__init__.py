"""Editing a design: the document and its undo commands, the canvas, inspector, palette, outline, requirements and export."""
