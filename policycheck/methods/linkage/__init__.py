"""Linkage by a maximum-knowledge attacker against multiple synthetic sets (paper 000).

Ruiz, Muralidhar and Domingo-Ferrer, "On the privacy guarantees of synthetic
data: a reassessment from the maximum-knowledge attacker perspective":
pre-sampling and multiple reverse mapping (sec. 3.1), multiple rank-based
record linkage (sec. 3.2) and the attribute disclosure scenario with range
narrowing across the M released sets (sec. 4, Tables 3-4).
"""
