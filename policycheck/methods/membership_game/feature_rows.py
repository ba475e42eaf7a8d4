"""The layout of a target's feature row: what each column holds (the rows :mod:`.features` computes).

Kept apart from the compiled features so that the attacks, which read the rows
on the workers, load neither numba nor the compiled code to find a column.
"""

from __future__ import annotations

#: Radii of the near-record counts (Gower distance); 0 counts exact copies.
RADII = (0.0, 0.02, 0.05, 0.1)
#: Names of the per-target features, before one frequency per column.
TARGET_FEATURES = ("closest_distance", *(f"share_within_{r:g}" for r in RADII), "density", "share_of_rarest_value")
#: Column of the closest distance, the density and the rarest value's share in a target's feature row.
CLOSEST, DENSITY, RAREST = 0, len(TARGET_FEATURES) - 2, len(TARGET_FEATURES) - 1
