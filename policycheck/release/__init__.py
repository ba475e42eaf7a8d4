"""The release under check: original data, 1..M synthetic sets, optional holdout."""

from policycheck.release.model import ColumnType, Dataset, Release, SynthesizerInfo

__all__ = ["ColumnType", "Dataset", "Release", "SynthesizerInfo"]
