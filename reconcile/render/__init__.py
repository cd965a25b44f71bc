"""Renderers: text and JSON views of result objects. Nothing here computes."""
