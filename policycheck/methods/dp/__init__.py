"""Differential privacy: declared budgets, transition-matrix audits and measured lower bounds (paper 004)."""
