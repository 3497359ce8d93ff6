"""The main window and what frames it: menus and actions, files, autosave, the welcome screen, live evaluation and how its results are shown."""
