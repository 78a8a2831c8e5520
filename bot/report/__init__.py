"""Renderers: a use case's result as the text or the JSON document a face writes."""
