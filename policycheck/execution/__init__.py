"""execution: see README "How it is built"."""
