"""engine: see README "How it is built"."""
