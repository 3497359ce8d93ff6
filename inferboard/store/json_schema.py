"""The JSON Schema of the design file, generated from the pydantic records.

    python -m inferboard.store.json_schema > docs/design-file.schema.json
"""

from __future__ import annotations

import json

from inferboard.store.records import DesignRecord


def design_file_schema() -> dict:
    """The JSON Schema of a design file, from the pydantic records."""
    schema = DesignRecord.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "Inferboard design file"
    return schema


def design_file_schema_text() -> str:
    """The JSON Schema of a design file as stable, indented text."""
    return json.dumps(design_file_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    print(design_file_schema_text(), end="")
