"""Linear-reconstruction attribute inference against synthetic data (paper 001).

Annamalai, Gadotti and Rocher, "A Linear Reconstruction Approach for
Attribute Inference Attacks against Synthetic Data" (USENIX Security 2024):
the LP attack (sec. 4.2), its baselines (sec. 4.3) and the attribute
inference privacy game (sec. 4.1).
"""
