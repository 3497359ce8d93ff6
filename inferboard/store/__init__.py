"""Design files: the versioned JSON format, migrations, safe parsing and atomic saves."""

from inferboard.store.atomic import FileStamp, SaveConflict, SaveFailed, atomic_write
from inferboard.store.design_files import (DesignFileError, design_to_bytes, design_to_dict, parse_design,
                                           read_design, save_design)

__all__ = ["FileStamp", "SaveConflict", "SaveFailed", "atomic_write", "DesignFileError", "design_to_bytes",
           "design_to_dict", "parse_design", "read_design", "save_design"]
