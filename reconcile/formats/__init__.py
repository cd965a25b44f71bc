"""Formats the package ships: the JSON Schema of findings.json (docs/outputs.md)."""
