"""The policy language: pydantic models, loading with ``extends``, validation."""
