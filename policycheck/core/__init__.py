"""core: see README "How it is built"."""
