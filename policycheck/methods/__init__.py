"""Algorithms behind the metrics, free of the registry and the report."""
