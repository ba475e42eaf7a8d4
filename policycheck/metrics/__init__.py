"""Metric families, one module each, behind :mod:`policycheck.metrics.registry`."""
